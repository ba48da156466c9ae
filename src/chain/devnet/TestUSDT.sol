// SPDX-License-Identifier: MIT
// A test USDT for predex's devnet (npm run chain:dev) and chain tests: an ERC20 with 6 decimals, as
// USDT has, that anyone may mint (it is worth nothing), and a block list like USDT's own, so that a
// transfer that reverts can be tried. Compiled by compile-contracts.ts with solc-js.
pragma solidity ^0.8.20;

contract TestUSDT {
    string public constant name = "Test Tether USD";
    string public constant symbol = "USDT";
    uint8 public constant decimals = 6;
    uint256 public totalSupply;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => bool) public isBlocked;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    function mint(address to, uint256 value) external {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    /// Like USDT's blacklist: a blocked address can neither send nor receive.
    function setBlocked(address account, bool blocked) external {
        isBlocked[account] = blocked;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _transfer(from, to, value);
        return true;
    }

    /// Several transfers in one transaction: one Transfer log each, so one transaction can carry
    /// several deposits (told apart by log index).
    function transferMany(address[] calldata to, uint256[] calldata values) external {
        require(to.length == values.length, "lengths");
        for (uint256 i = 0; i < to.length; i++) _transfer(msg.sender, to[i], values[i]);
    }

    function _transfer(address from, address to, uint256 value) internal {
        require(!isBlocked[from] && !isBlocked[to], "blocked");
        require(balanceOf[from] >= value, "balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
