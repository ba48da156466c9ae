// The shapes the desk reads from the admin API (src/api/admin/routes).

export interface Category {
  readonly id: string;
  readonly parentId: string | null;
  readonly level: number;
  readonly name: string;
  readonly names: Readonly<Record<string, string>>;
  readonly online: boolean;
  readonly deleted: boolean;
}

export interface MarketRow {
  readonly marketId: string;
  readonly title: string;
  readonly status: string;
  readonly modelType: string;
  readonly category: string;
  readonly volume: string;
  readonly startTime: string | null;
  readonly endTime: string | null;
  readonly createdAt: string;
  /** An exclusive event (DESIGN §10): exactly one outcome wins. */
  readonly exclusive: boolean;
}

export interface MarketDetail {
  readonly marketId: string;
  readonly title: string;
  readonly status: string;
  readonly modelType: string;
  readonly category: string;
  readonly volume: string;
  readonly fee: string;
  readonly startTime: string;
  readonly endTime: string;
  readonly ifHasChallenged: boolean | null;
  readonly challengeBondAmount: number;
  readonly exclusive: boolean;
  readonly outcomes: readonly {
    outcomeId: string;
    name: string;
    options: readonly {
      optionId: string;
      title: string;
      chance: number;
      optionIndex: number;
      isWin: boolean | null;
    }[];
  }[];
}

export interface RestingOrder {
  readonly orderId: string;
  readonly userId: string;
  readonly outcomeId: string;
  readonly optionId: string;
  readonly side: string;
  readonly status: string;
  readonly limitPrice: string;
  readonly shares: string;
  readonly remainingShares: string;
  readonly createdAt: string;
}

export interface Withdrawal {
  readonly withdrawId: string;
  readonly userId: string;
  readonly amount: string;
  readonly fee: string;
  readonly address: string;
  readonly status: string;
  readonly createdAt: string;
}

export interface User {
  readonly userId: string;
  readonly merchantId: string;
  readonly partnerName: string;
  readonly marchantUserId: string;
  readonly email: string;
  readonly userName: string;
  readonly available: string;
  readonly frozen: string;
  readonly activeSessions: number;
  readonly createdAt: string;
}

export interface Partner {
  readonly merchantId: string;
  readonly name: string;
  readonly appKey: string;
  readonly commissionRate: string;
  readonly webhookUrl: string | null;
  /** Requests other than GET, HEAD and OPTIONS must sign an x-ca-nonce. */
  readonly signedNonceRequired: boolean;
  readonly userCount: number;
  readonly createdAt: string;
}

export interface CreatedPartner {
  readonly merchantId: string;
  readonly appKey: string;
  readonly appSecret: string;
  readonly apiKey: string;
  readonly webhookSecret: string;
}

export interface Deposit {
  readonly userId: string;
  readonly amount: string;
  readonly txHash: string;
  readonly creditedAt: string;
}

export interface Application {
  readonly applicationId: string;
  readonly userId: string;
  readonly title: string;
  readonly description: string;
  readonly modelType: string;
  readonly status: string;
  readonly marketId: string | null;
  readonly rejectReason: string | null;
  readonly createTime: string;
  readonly outcomeOptionsVoList: readonly { optionTitle: string }[];
}
