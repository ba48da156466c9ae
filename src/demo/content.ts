// What the demo seeds: a small category tree, a handful of markets and a few users. Plain data, so
// the seeding code stays about idempotency and the wording can change without touching it.

/** A category node of the demo tree; `key` names it inside this file only. */
export interface DemoCategory {
  readonly key: string;
  readonly name: string;
  readonly zhName: string;
  readonly parentKey?: string;
}

export type DemoModel = "orderbook" | "AMM" | "parimutuel";

export interface DemoMarket {
  /** Also the idempotency key: a listed market with this title and status open is reused. */
  readonly title: string;
  readonly description: string;
  readonly rules: string;
  readonly tags: string;
  readonly categoryKey: string;
  readonly modelType: DemoModel;
  /** The outcome's name; its options are Yes and No. */
  readonly outcomeName: string;
  /** Where the market maker starts its fair price (Yes), and the AMM's initial weight of Yes. */
  readonly initialYesPrice: number;
  readonly endsInDays: number;
  /**
   * An exclusive event (DESIGN §10): these outcomes instead of the one above, exactly one of which
   * wins; the market maker starts each one's Yes at its price (they add up to 1).
   */
  readonly exclusiveOutcomes?: readonly { readonly name: string; readonly initialYesPrice: number }[];
}

export interface DemoUser {
  readonly marchantUserId: string;
  readonly email: string;
  /** USDT credited once by `POST /admin/deposits` with txHash `demo-funding-<marchantUserId>`. */
  readonly fundingUsdt: number;
}

export const demoCategories: readonly DemoCategory[] = [
  { key: "politics", name: "Politics", zhName: "政治" },
  { key: "sports", name: "Sports", zhName: "体育" },
  { key: "football", name: "Football", zhName: "足球", parentKey: "sports" },
  { key: "crypto", name: "Crypto", zhName: "加密货币" },
  { key: "economy", name: "Economy", zhName: "经济" },
];

export const demoMarkets: readonly DemoMarket[] = [
  {
    title: "Will BTC close above $100,000 on the market's end date?",
    description:
      "Resolves Yes if the BTC/USDT daily close on the end date, as published by the three largest spot exchanges by volume (median), is above 100,000.",
    rules: "Median of the three daily closes at 00:00 UTC. Ties resolve No.",
    tags: "bitcoin,btc,price",
    categoryKey: "crypto",
    modelType: "orderbook",
    outcomeName: "BTC above $100k",
    initialYesPrice: 0.55,
    endsInDays: 21,
  },
  {
    title: "Will ETH trade above $5,000 before the end date?",
    description:
      "Resolves Yes if ETH/USDT prints any trade above 5,000 on a major spot exchange before the end.",
    rules: "Any single trade counts; wicks included.",
    tags: "ethereum,eth,price",
    categoryKey: "crypto",
    modelType: "orderbook",
    outcomeName: "ETH above $5k",
    initialYesPrice: 0.3,
    endsInDays: 28,
  },
  {
    title: "Will the central bank cut its policy rate at the next meeting?",
    description:
      "Resolves Yes if the announced policy rate after the next scheduled meeting is lower than today's.",
    rules: "The official statement decides; an unscheduled meeting does not count.",
    tags: "rates,central bank,inflation",
    categoryKey: "economy",
    modelType: "orderbook",
    outcomeName: "Rate cut",
    initialYesPrice: 0.4,
    endsInDays: 35,
  },
  {
    title: "Will the league leaders still be top after the next matchday?",
    description:
      "Resolves Yes if the team leading the table today still leads it once the next matchday is played.",
    rules: "The official league table after the last match of the matchday decides.",
    tags: "football,league,table",
    categoryKey: "football",
    modelType: "orderbook",
    outcomeName: "Leaders stay top",
    initialYesPrice: 0.7,
    endsInDays: 14,
  },
  {
    title: "Will the parliament pass the budget bill before the recess?",
    description:
      "Resolves Yes if the budget bill passes its final vote in parliament before the summer recess begins.",
    rules: "The parliament's published record of votes decides.",
    tags: "budget,parliament,vote",
    categoryKey: "politics",
    modelType: "orderbook",
    outcomeName: "Budget passes",
    initialYesPrice: 0.62,
    endsInDays: 30,
  },
  {
    title: "Will the cup final have more than 2.5 goals?",
    description:
      "An AMM market: buy or sell against the pool at any time. Resolves Yes on three goals or more.",
    rules: "Goals in regular time and extra time count; penalty shoot-outs do not.",
    tags: "football,cup,goals",
    categoryKey: "football",
    modelType: "AMM",
    outcomeName: "Over 2.5 goals",
    initialYesPrice: 0.55,
    endsInDays: 21,
  },
  {
    title: "Will voter turnout in the regional election exceed 60%?",
    description: "A parimutuel market: stakes form one pool, split among the winning side at settlement.",
    rules: "The electoral commission's final turnout figure decides.",
    tags: "election,turnout,vote",
    categoryKey: "politics",
    modelType: "parimutuel",
    outcomeName: "Turnout above 60%",
    initialYesPrice: 0.5,
    endsInDays: 28,
  },
  {
    title: "Who will win the league title?",
    description:
      "An exclusive event: four clubs, exactly one champion. Each club is a Yes/No book; a No share of one club converts into a Yes share of each of the others (POST /ordering/convert).",
    rules:
      "The club top of the official table after the last matchday wins: its Yes pays 1, every other club's No pays 1.",
    tags: "football,league,title,exclusive",
    categoryKey: "football",
    modelType: "orderbook",
    outcomeName: "League champion",
    initialYesPrice: 0.4,
    endsInDays: 42,
    exclusiveOutcomes: [
      { name: "Harbour City", initialYesPrice: 0.4 },
      { name: "Northgate United", initialYesPrice: 0.3 },
      { name: "Riverside", initialYesPrice: 0.2 },
      { name: "Old Town Rovers", initialYesPrice: 0.1 },
    ],
  },
];

/** The market maker's account. */
export const demoMakerUser: DemoUser = {
  marchantUserId: "demo-market-maker",
  email: "maker@demo.predex.local",
  fundingUsdt: 1_000_000,
};

/** The account that now and then crosses the maker's quotes, so that trades happen. */
export const demoTakerUser: DemoUser = {
  marchantUserId: "demo-taker",
  email: "taker@demo.predex.local",
  fundingUsdt: 100_000,
};

/** Funded users a newcomer can register again (same marchantUserId) to trade by hand. */
export const demoPeopleUsers: readonly DemoUser[] = [
  { marchantUserId: "alice", email: "alice@example.com", fundingUsdt: 1_000 },
  { marchantUserId: "bob", email: "bob@example.com", fundingUsdt: 1_000 },
];

/** AMM pools need at least 100 USDT (DESIGN §3); the demo funds them well above that. */
export const demoAmmLiquidityUsdt = 1_000;
/** Basis points taken from the parimutuel pool at settlement. */
export const demoParimutuelSettlementFeeBps = 200;
