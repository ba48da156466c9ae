// An exclusive event (DESIGN §10) as one panel: every outcome's Yes price side by side, and their
// sum, which a well-quoted event keeps near 1 since exactly one outcome wins. Each outcome is a
// button: one click shows its live book below.

import { formatPercent, formatPriceCents } from "../shared/format.js";
import type { MarketDetail } from "./types.js";

type Outcome = MarketDetail["outcomes"][number];

function yesOf(outcome: Outcome) {
  return outcome.options.find((option) => option.optionIndex === 0) ?? outcome.options[0];
}

export function EventOutcomes(props: {
  market: MarketDetail;
  shownOutcomeId: string;
  onShowBook: (outcomeId: string) => void;
}) {
  const { outcomes } = props.market;
  // Display only: the prices are exact decimals, their sum is shown to the tick.
  const yesSum = outcomes.reduce((sum, outcome) => sum + Number(yesOf(outcome)?.price ?? 0), 0);
  return (
    <section class="panel" aria-labelledby="event-title" data-testid="event-outcomes">
      <h2 id="event-title">One event, {outcomes.length} outcomes: exactly one wins</h2>
      <ul class="event-outcomes">
        {outcomes.map((outcome) => {
          const yes = yesOf(outcome);
          const shown = outcome.outcomeId === props.shownOutcomeId;
          return (
            <li key={outcome.outcomeId}>
              <button
                type="button"
                aria-pressed={shown}
                data-outcome-id={outcome.outcomeId}
                data-yes-price={yes?.price}
                aria-label={`${outcome.name}: Yes at ${yes === undefined ? "no price" : formatPriceCents(yes.price)}, show its book`}
                onClick={() => props.onShowBook(outcome.outcomeId)}
              >
                <span class="event-outcome-name">{outcome.name}</span>
                <span class="chance">{yes === undefined ? "—" : formatPriceCents(yes.price)}</span>
                <span class="muted small">
                  Yes {yes === undefined ? "" : formatPercent(yes.chance)}
                  {yes?.isWin === true ? " · won" : ""}
                  {shown ? " · book below" : " · show book"}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
      <p class="muted small" style={{ margin: 0 }} data-testid="event-yes-sum">
        Yes prices add up to {formatPriceCents(yesSum.toFixed(4))}. A No share of one outcome can be converted
        into a Yes share of every other (POST /ordering/convert): it pays the same whoever wins.
      </p>
    </section>
  );
}
