// The shapes the market pages read from /console-api (src/api/public/routes/console-markets.ts).

export interface CategoryNode {
  readonly id: string;
  readonly level: number;
  readonly name: string;
  readonly nameDisplay: string;
  readonly children: readonly CategoryNode[];
}

export interface ListOption {
  readonly optionId: string;
  readonly title: string;
  readonly price: string;
  readonly chance: number;
  readonly optionIndex: number;
}

export interface MarketRecord {
  readonly marketId: string;
  readonly title: string;
  readonly category: string;
  readonly status: string;
  readonly volume: string;
  readonly endTime: string;
  readonly modelType: string;
  readonly outcomes: readonly { outcomeId: string; name: string; options: readonly ListOption[] }[];
}

export interface MarketsPage {
  readonly total: number;
  readonly pages: number;
  readonly current: number;
  readonly records: readonly MarketRecord[];
}

export interface DetailOption {
  readonly optionId: string;
  readonly title: string;
  readonly chance: number;
  readonly price: string;
  readonly optionIndex: number;
  readonly isWin: boolean | null;
}

export interface MarketDetail {
  readonly marketId: string;
  readonly title: string;
  readonly description: string;
  readonly rules: string;
  readonly category: string;
  readonly status: string;
  readonly modelType: string;
  readonly volume: string;
  readonly startTime: string;
  readonly endTime: string;
  readonly makerFee: number;
  readonly takerFee: number;
  readonly creator: { readonly name: string };
  readonly outcomes: readonly {
    outcomeId: string;
    name: string;
    title: string;
    options: readonly DetailOption[];
  }[];
}

export interface Asset {
  readonly outcomeId: string;
  readonly optionId: string;
  readonly optionIndex: number;
  readonly assetId: string;
}

export interface ConsoleMarket {
  readonly market: MarketDetail;
  readonly assets: readonly Asset[];
  /** An exclusive event (DESIGN §10): exactly one outcome wins. */
  readonly exclusive: boolean;
}

export interface Trade {
  readonly tradeId: string;
  readonly price: string;
  readonly shares: string;
  readonly side: string;
  readonly timeMs: number;
}
