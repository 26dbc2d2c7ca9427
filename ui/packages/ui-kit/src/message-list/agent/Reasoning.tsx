// CONTRACT (see options/MessageOptions.tsx): an agent's reasoning, folded under its answer.
import { useId, useState } from "react";

export interface ReasoningProps {
  /** What the agent thought. */
  text: string;
  /** How long it thought; undefined when unknown (the summary then says "Thoughts"). */
  durationMs?: number | undefined;
  /** Still thinking: the summary says so, and the text grows while it is open. */
  live?: boolean;
}

/** "Thought for 4 s" (whole seconds, at least 1: a summary, not a stopwatch). */
export function reasoningSummary(durationMs: number | undefined, live = false): string {
  if (live) return "Thinking…";
  if (durationMs === undefined || durationMs <= 0) return "Thoughts";
  return `Thought for ${Math.max(1, Math.round(durationMs / 1000))} s`;
}

/**
 * A reasoning model's thinking as a disclosure: closed by default, so the answer stays what
 * people read; the button's aria-expanded says whether the text shows.
 */
export function Reasoning({ text, durationMs, live = false }: ReasoningProps) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <div className="chat-agent-reasoning" data-state={live ? "thinking" : "done"}>
      <button type="button" className="chat-agent-reasoning__toggle" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)}>
        <span className="chat-agent-reasoning__chevron" aria-hidden="true">{open ? "▾" : "▸"}</span>
        <span className="chat-agent-reasoning__summary">{reasoningSummary(durationMs, live)}</span>
      </button>
      <div id={id} className="chat-agent-reasoning__text" hidden={!open}>
        {text}
      </div>
    </div>
  );
}
