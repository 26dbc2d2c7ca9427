import type { BaseMessage } from "./models/message";
import { Reaction, ReactionCount, ReactionEvent } from "./models/reaction";

/**
 * updateMessageWithReactionInfo applies a live reaction change to a message: a copy with the
 * reaction's count moved by one (and reactedByMe when the reactor is me). Messages it is not
 * about are returned unchanged. A change already reflected (the user's own reaction, counted
 * in the answer of addReaction) is not applied twice.
 */
export function updateMessageWithReactionInfo(
  message: BaseMessage,
  change: ReactionEvent | Reaction,
  action: "added" | "removed",
  me?: string,
): BaseMessage {
  const r = change instanceof ReactionEvent ? change.getReaction() : change;
  if (r.getMessageId() !== message.getId()) return message;
  const mine = me !== undefined && r.getUid() === me;
  const counts = message.getReactions().map((c) => new ReactionCount(c.getReaction(), c.getCount(), c.getReactedByMe()));
  const i = counts.findIndex((c) => c.getReaction() === r.getReaction());
  const c = i >= 0 ? counts[i] : undefined;
  if (action === "added") {
    if (mine && c?.getReactedByMe()) return message;
    if (c) {
      c.setCount(c.getCount() + 1);
      if (mine) c.setReactedByMe(true);
    } else counts.push(new ReactionCount(r.getReaction(), 1, mine));
  } else {
    if (!c || (mine && !c.getReactedByMe())) return message;
    if (c.getCount() <= 1) counts.splice(i, 1);
    else {
      c.setCount(c.getCount() - 1);
      if (mine) c.setReactedByMe(false);
    }
  }
  const copy = message.clone();
  copy.setReactions(counts);
  return copy;
}
