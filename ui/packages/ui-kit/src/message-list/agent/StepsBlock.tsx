// CONTRACT (see options/MessageOptions.tsx): an agent run's steps as one compact block.
import { useId, useState, type ReactNode } from "react";
import { Reasoning } from "./Reasoning";
import type { RunStep } from "./steps";

export interface StepsBlockProps {
  steps: readonly RunStep[];
  /** The last message of the block (the list reads up to it). */
  lastId: number;
  agentName: string;
  /** The run ended without answering in words after these steps. */
  noReply: boolean;
  /** The list item's key (the virtual window measures by it). */
  itemKey?: string;
  /** Drawn under the steps: a template's footer of the answer whose calls they ran. */
  footer?: ReactNode;
}

const mark = { called: "⚙", done: "✓", error: "✗" } as const;
const said = { called: "Called", done: "Done", error: "Failed" } as const;

/** "Used 2 tools: Recipe from pantry, Show recipe card", collapsed; open, a step per line with
 * its outcome. A failed step opens it and says so on the summary. */
export function StepsBlock({ steps, lastId, agentName, noReply, itemKey, footer }: StepsBlockProps) {
  const failed = steps.filter((s) => s.state === "error").length;
  const [open, setOpen] = useState(failed > 0);
  const listId = useId();
  const names = steps.map((s) => s.label).join(", ");
  const summary = `${steps.length === 1 ? "Used 1 tool" : `Used ${steps.length} tools`}${failed ? ` (${failed} failed)` : ""}`;
  return (
    <div className="chat-message-list__message chat-message-list__message--incoming chat-agent-steps" data-message-id={lastId}
      data-item-key={itemKey} data-state={failed ? "error" : "done"}>
      <button type="button" className="chat-agent-steps__toggle" aria-expanded={open} aria-controls={listId} onClick={() => setOpen((o) => !o)}>
        <span className="chat-agent-steps__icon" aria-hidden="true">{failed ? "!" : "⚙"}</span>
        <span className="chat-agent-steps__summary">{summary}</span>
        <span className="chat-agent-steps__names">{names}</span>
        <span className="chat-agent-steps__chevron" aria-hidden="true">{open ? "▾" : "▸"}</span>
      </button>
      <ol id={listId} className="chat-agent-steps__list" hidden={!open}>
        {steps.map((s) => (
          <li key={s.id} className="chat-agent-steps__step" data-state={s.state}>
            <span className="chat-agent-steps__mark" aria-hidden="true">{mark[s.state]}</span>
            <span className="chat-visually-hidden">{said[s.state]}: </span>
            <span className="chat-agent-steps__label">{s.label}</span>
            {s.error ? <span className="chat-agent-steps__error">{s.error}</span> : null}
            {s.reasoning ? <Reasoning text={s.reasoning.text} durationMs={s.reasoning.durationMs} /> : null}
          </li>
        ))}
      </ol>
      {noReply ? <p className="chat-agent-steps__no-reply">{agentName} finished without a reply.</p> : null}
      {footer != null ? <div className="chat-agent-steps__footer-view">{footer}</div> : null}
    </div>
  );
}
