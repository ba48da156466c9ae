// The MFA service and its store on SQLite (the suite itself: test/mfa/mfa-contract.ts).

import { sqliteMfaStores } from "./fixture.js";
import { describeMfaStoreContract } from "./mfa-contract.js";

describeMfaStoreContract("sqlite", sqliteMfaStores);
