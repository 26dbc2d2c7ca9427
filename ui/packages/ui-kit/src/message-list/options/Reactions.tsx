// CONTRACT (see MessageOptions.tsx): the reactions row under a bubble, with the detail view.
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useMemo, useRef, useState, type PointerEvent } from "react";
import type { ChatMessageListProps } from "../props";
import { ListIcon } from "./icons";
import { ReactionsDetail } from "./ReactionsDetail";

export interface ReactionsProps {
  message: Chat.BaseMessage;
  props: ChatMessageListProps;
  loggedInUser: Chat.User;
  onError(error: unknown): void;
}

const LONG_PRESS_MS = 500;

/** A long touch press (not a mouse's) opens the detail view; the click that ends it does not toggle. */
function useLongPress(onLong: (emoji: string) => void) {
  const press = useRef<{ timer: ReturnType<typeof setTimeout>; fired: boolean } | null>(null);
  useEffect(() => () => clearTimeout(press.current?.timer), []);
  const end = () => clearTimeout(press.current?.timer);
  return {
    fired: () => !!press.current?.fired,
    handlers: (emoji: string) => ({
      onPointerDown(e: PointerEvent) {
        if (e.pointerType === "mouse") {
          if (press.current) press.current.fired = false;
          return;
        }
        clearTimeout(press.current?.timer);
        const p = { fired: false, timer: setTimeout(() => {
          p.fired = true;
          onLong(emoji);
        }, LONG_PRESS_MS) };
        press.current = p;
      },
      onPointerUp: end,
      onPointerLeave: end,
      onPointerCancel: end,
    }),
  };
}

/** Reaction chips (count, mine highlighted; onReactionClick or toggle) and the detail view. */
export function Reactions({ message, props, loggedInUser, onError }: ReactionsProps) {
  // The service's answer to our own toggle, until the list hands us a newer message.
  const [override, setOverride] = useState<{ of: Chat.BaseMessage; reactions: Chat.ReactionCount[] }>();
  const [detail, setDetail] = useState<{ filter?: string | undefined } | null>(null);
  const rootRef = useRef<HTMLDivElement>(null);
  const press = useLongPress((emoji) => setDetail({ filter: emoji }));
  const current = useMemo(() => (override?.of === message ? withReactions(message, override.reactions) : message), [override, message]);
  const reactions = current.getReactions().filter((r) => r.getCount() > 0);
  if (!reactions.length || message.getDeletedAt()) return null;

  const click = (r: Chat.ReactionCount) => {
    if (press.fired()) return; // the long press opened the detail view
    if (props.onReactionClick) return props.onReactionClick(r, message);
    const of = message;
    (r.getReactedByMe() ? Chat.removeReaction : Chat.addReaction)(message.getId(), r.getReaction()).then(
      (updated) => setOverride({ of, reactions: updated.getReactions() }),
      onError,
    );
  };
  return (
    <div ref={rootRef} className="chat-reactions" role="group" aria-label="Reactions">
      {reactions.map((r) => {
        const n = r.getCount();
        const mine = r.getReactedByMe();
        const label = `${r.getReaction()} ${n} ${n === 1 ? "reaction" : "reactions"}${mine ? ", including yours" : ""}`;
        return (
          <button key={r.getReaction()} type="button" className={`chat-reactions__chip${mine ? " chat-reactions__chip--mine" : ""}`} aria-pressed={mine} aria-label={label}
            title={props.onReactionClick ? label : mine ? "Remove your reaction" : `React with ${r.getReaction()}`} onClick={() => click(r)}
            onContextMenu={(e) => {
              e.preventDefault();
              setDetail({ filter: r.getReaction() });
            }}
            {...press.handlers(r.getReaction())}
          >
            <span className="chat-reactions__emoji" aria-hidden="true">{r.getReaction()}</span>
            <span className="chat-reactions__count" aria-hidden="true">{n}</span>
          </button>
        );
      })}
      <button type="button" className="chat-ui-icon-button chat-reactions__detail-button" aria-label="Who reacted" title="Who reacted" aria-haspopup="dialog" onClick={() => setDetail({})}>
        <ListIcon />
      </button>
      {detail ? (
        <ReactionsDetail message={current} props={props} loggedInUser={loggedInUser} initialFilter={detail.filter} anchor={rootRef} onClose={() => setDetail(null)} onError={onError} />
      ) : null}
    </div>
  );
}

function withReactions(m: Chat.BaseMessage, reactions: Chat.ReactionCount[]): Chat.BaseMessage {
  const c = m.clone();
  c.setReactions(reactions);
  return c;
}
