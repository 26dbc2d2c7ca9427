import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { updateMessageWithReactionInfo } from "./helpers";
import { TextMessage } from "./models/message";
import { Reaction, ReactionCount } from "./models/reaction";

const counts = (m: { getReactions(): ReactionCount[] }) => m.getReactions().map((c) => [c.getReaction(), c.getCount(), c.getReactedByMe()]);

function message(id: number, reactions: Array<[string, number, boolean]>): TextMessage {
  const m = new TextMessage("u", "x", "user");
  m.setId(id);
  m.setReactions(reactions.map(([r, n, me]) => new ReactionCount(r, n, me)));
  return m;
}

describe("updateMessageWithReactionInfo", () => {
  test("adds and removes counts on a copy", () => {
    const m = message(1, [["👍", 1, false]]);
    const a = updateMessageWithReactionInfo(m, new Reaction(1, "👍", "me", 0), "added", "me");
    expect(counts(a)).toEqual([["👍", 2, true]]);
    expect(counts(m)).toEqual([["👍", 1, false]]);
    const b = updateMessageWithReactionInfo(a, new Reaction(1, "🎉", "bob", 0), "added", "me");
    expect(counts(b)).toEqual([["👍", 2, true], ["🎉", 1, false]]);
    const c = updateMessageWithReactionInfo(b, new Reaction(1, "🎉", "bob", 0), "removed", "me");
    expect(counts(c)).toEqual([["👍", 2, true]]);
    expect(updateMessageWithReactionInfo(c, new Reaction(2, "👍", "me", 0), "removed", "me")).toBe(c);
  });

  test("my own reaction already counted is not counted twice", () => {
    const m = message(1, [["👍", 1, true]]);
    expect(updateMessageWithReactionInfo(m, new Reaction(1, "👍", "me", 0), "added", "me")).toBe(m);
    expect(updateMessageWithReactionInfo(message(1, []), new Reaction(1, "👍", "me", 0), "removed", "me").getReactions()).toEqual([]);
  });

  test("property: adding then removing the same user's reaction restores the counts", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.constantFrom("a", "b", "c", "d"), fc.integer({ min: 1, max: 5 }), fc.boolean()), { selector: (t) => t[0] }),
        fc.constantFrom("a", "b", "c", "d", "e"),
        fc.constantFrom("me", "bob"),
        (initial, reaction, uid) => {
          const m = message(1, initial);
          const had = initial.find((t) => t[0] === reaction);
          if (uid === "me" && had?.[2]) return; // already mine: adding is a no-op
          if (uid === "bob" && had && had[1] === (had[2] ? 1 : 0)) return; // impossible state
          const added = updateMessageWithReactionInfo(m, new Reaction(1, reaction, uid, 0), "added", "me");
          const back = updateMessageWithReactionInfo(added, new Reaction(1, reaction, uid, 0), "removed", "me");
          expect(counts(back).sort()).toEqual(counts(m).sort());
        },
      ),
    );
  });
});
