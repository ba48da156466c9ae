// The shapes of chain version 2 (journal-compact-codec.ts): an object whose own keys are exactly one
// of these lists, in this order (and whose `type`, where the list has one, is the given one), is
// written as its values alone, `[id, …values]`, id being its 1-based place here. Collected from every
// command and event the core's tests and bench:orders' mix decide (all 53 types, each variant of
// optional fields seen, and the nested objects seen more than a hundred times).
//
// APPEND ONLY: journals hold these ids. A shape may be added at the end (older builds then refuse
// entries using it, loudly); none may be changed, removed or reordered. An object matching no shape
// is written with its keys, so a new field or command costs bytes, never correctness.

export interface JournalShape {
  /** The `type` field's value, implied by the shape (not written); undefined for untyped objects. */
  readonly type?: string;
  /** The keys, comma-separated, in order. */
  readonly keys: string;
}

export const journalShapes: readonly JournalShape[] = [
  { type: "AmendOrder", keys: "type,userId,orderId,shares,limitPrice" },
  { type: "AmmPoolFunded", keys: "type,marketId,outcomeId,amount,balances,funderShares,atMs" },
  { type: "ApproveWithdrawal", keys: "type,withdrawalId" },
  { type: "CancelAllOrders", keys: "type,userId,marketId,outcomeId" },
  { type: "CancelOrder", keys: "type,userId,orderId" },
  { type: "CancelWithdrawal", keys: "type,userId,withdrawalId" },
  { type: "ChallengeBondForfeited", keys: "type,marketId,userId,amount,atMs" },
  { type: "ChallengeBondReturned", keys: "type,marketId,userId,amount,atMs" },
  { type: "ChallengeResolution", keys: "type,marketId,userId,reason" },
  { type: "ClaimMarket", keys: "type,userId,marketId" },
  { type: "ClaimPosition", keys: "type,userId,positionId" },
  { type: "CloseMarket", keys: "type,marketId" },
  { type: "CompleteWithdrawal", keys: "type,withdrawalId" },
  { type: "ConvertPositions", keys: "type,userId,marketId,outcomeIds,shares" },
  {
    type: "CreateMarket",
    keys: "type,title,modelType,outcomes,tickSize,minOrderSize,makerFeeBps,takerFeeBps,marketOrderPriceProtection,limitOrderPriceProtection,startTimeMs,endTimeMs,creatorId,details,pool",
  },
  {
    type: "CreateMarket",
    keys: "type,title,modelType,outcomes,tickSize,minOrderSize,makerFeeBps,takerFeeBps,marketOrderPriceProtection,limitOrderPriceProtection,startTimeMs,endTimeMs,creatorId,details,pool,exclusive",
  },
  { type: "DeadMansSwitchArmed", keys: "type,userId,timeoutMs,expiresAtMs,atMs" },
  { type: "DeadMansSwitchDisarmed", keys: "type,userId,atMs" },
  { type: "DeadMansSwitchTripped", keys: "type,userId,expiresAtMs,cancelledOrders,atMs" },
  { type: "DepositCredited", keys: "type,userId,amount,txHash,atMs" },
  { type: "Deposit", keys: "type,userId,amount,txHash" },
  {
    type: "ExclusiveMarketFinished",
    keys: "type,marketId,voided,outcomeCount,retiredNoShares,advance,released,dust,atMs",
  },
  { type: "ExpireOrders", keys: "type" },
  { type: "FinalizeMarket", keys: "type,marketId,winners" },
  { type: "Heartbeat", keys: "type,userId,timeoutMs" },
  { type: "MarketClosed", keys: "type,marketId,atMs" },
  {
    type: "MarketCreated",
    keys: "type,marketId,title,modelType,tickSize,minOrderSize,makerFeeBps,takerFeeBps,marketOrderPriceProtection,limitOrderPriceProtection,startTimeMs,endTimeMs,creatorId,details,createdAtMs,outcomes",
  },
  {
    type: "MarketCreated",
    keys: "type,marketId,title,modelType,tickSize,minOrderSize,makerFeeBps,takerFeeBps,marketOrderPriceProtection,limitOrderPriceProtection,startTimeMs,endTimeMs,creatorId,details,exclusive,createdAtMs,outcomes",
  },
  {
    type: "MarketCreated",
    keys: "type,marketId,title,modelType,tickSize,minOrderSize,makerFeeBps,takerFeeBps,marketOrderPriceProtection,limitOrderPriceProtection,startTimeMs,endTimeMs,creatorId,details,poolTerms,createdAtMs,outcomes",
  },
  { type: "MarketOpened", keys: "type,marketId,atMs" },
  { type: "MarketResolved", keys: "type,marketId,proposerId,winners,challengeBond,windowEndsAtMs,atMs" },
  { type: "MarketSettled", keys: "type,marketId,winners,by,atMs" },
  { type: "MarketVoided", keys: "type,marketId,atMs" },
  { type: "OpenMarket", keys: "type,marketId" },
  {
    type: "OrderAmended",
    keys: "type,orderId,userId,marketId,outcomeId,optionId,side,priorityKept,limitPrice,shares,status,filledShares,filledAmount,feePaid,restingShares,releasedAmount,releasedShares,frozenAmount,frozenShares,atMs",
  },
  {
    type: "OrderCancelled",
    keys: "type,reason,orderId,userId,marketId,outcomeId,optionId,side,filledShares,remainingShares,releasedAmount,releasedShares,atMs",
  },
  {
    type: "OrderExpired",
    keys: "type,orderId,userId,marketId,outcomeId,optionId,side,filledShares,remainingShares,releasedAmount,releasedShares,atMs",
  },
  {
    type: "OrderPlaced",
    keys: "type,orderId,userId,marketId,outcomeId,optionId,side,orderType,timeInForce,limitPrice,shares,amount,expiresAtMs,clientOrderId,createdAtMs,status,filledShares,filledAmount,feePaid,restingShares,frozenAmount,frozenShares",
  },
  {
    type: "OrderPlaced",
    keys: "type,orderId,userId,marketId,outcomeId,optionId,side,orderType,timeInForce,limitPrice,shares,amount,expiresAtMs,clientOrderId,createdAtMs,status,filledShares,filledAmount,feePaid,restingShares,frozenAmount,frozenShares,postOnly",
  },
  { type: "OrderRepeated", keys: "type,orderId,userId,clientOrderId,atMs" },
  {
    type: "PlaceOrder",
    keys: "type,userId,marketId,outcomeId,optionId,side,orderType,limitPrice,shares,amount,timeInForce,expiresAtMs,clientOrderId",
  },
  {
    type: "PlaceOrder",
    keys: "type,userId,marketId,outcomeId,optionId,side,orderType,limitPrice,shares,amount,timeInForce,expiresAtMs,clientOrderId,postOnly",
  },
  {
    type: "PoolSettled",
    keys: "type,marketId,outcomeId,atMs,modelType,returnedToPlatform,fee,dust,distributable,winningStake",
  },
  {
    type: "PoolTradeExecuted",
    keys: "type,tradeId,orderId,userId,marketId,outcomeId,optionId,positionId,modelType,side,shares,amount,fee,availableDelta,collateralDelta,poolAfter,priceAfter,atMs",
  },
  {
    type: "PositionClaimed",
    keys: "type,positionId,userId,marketId,outcomeId,optionId,shares,amount,transactionId,atMs",
  },
  {
    type: "PositionsConverted",
    keys: "type,marketId,userId,shares,collateral,burned,minted,transactionId,atMs",
  },
  { type: "RejectWithdrawal", keys: "type,withdrawalId" },
  { type: "RequestWithdrawal", keys: "type,userId,amount,fee,address" },
  { type: "ResolutionChallenged", keys: "type,marketId,userId,bond,reason,atMs" },
  { type: "ResolveMarket", keys: "type,marketId,proposerId,winners,challengeWindowMs,challengeBond" },
  { type: "SettleMarket", keys: "type,marketId" },
  {
    type: "TradeExecuted",
    keys: "type,tradeId,marketId,outcomeId,cross,yesPrice,shares,atMs,makerOrderId,makerUserId,makerOptionId,makerSide,makerPositionId,makerPrice,makerNotional,makerFee,makerAvailableDelta,makerFrozenDelta,makerRemainingShares,makerStatus,takerOrderId,takerUserId,takerOptionId,takerSide,takerPositionId,takerPrice,takerNotional,takerFee,takerAvailableDelta,collateralDelta",
  },
  { type: "TripDeadMansSwitch", keys: "type,userId" },
  { type: "VoidMarket", keys: "type,marketId" },
  { type: "WithdrawalApproved", keys: "type,withdrawalId,userId,atMs" },
  { type: "WithdrawalCompleted", keys: "type,withdrawalId,userId,amount,fee,atMs" },
  { type: "WithdrawalReleased", keys: "type,withdrawalId,userId,amount,fee,reason,atMs" },
  { type: "WithdrawalRequested", keys: "type,withdrawalId,userId,amount,fee,address,atMs" },
  { keys: "liquidity,weights,buyFeeBps,sellFeeBps" },
  {
    keys: "modelType,liquidity,weights,buyFeeBps,sellFeeBps,buyAmountMin,buyAmountMax,sellSharesMin,sellSharesMax",
  },
  { keys: "modelType,settlementFeeBps,buyAmountMin,buyAmountMax" },
  { keys: "name,options" },
  { keys: "optionId,optionIndex,title,assetId" },
  { keys: "outcomeId,amount" },
  { keys: "outcomeId,name,options" },
  { keys: "outcomeId,optionId" },
  { keys: "outcomeId,optionId,positionId,cost" },
  { keys: "outcomeId,optionId,positionId,proceeds" },
  { keys: "outcomeId,winningOptionId" },
];
