import { describe, expect, test } from "vitest";
import { absentAgents, insertMention, mentionAt, suggest, type Mentionable } from "./mentions";

const people: Mentionable[] = [
  { uid: "bob", name: "Bob", agent: false, member: true },
  { uid: "carol", name: "Carol Baker", agent: false, member: true },
  { uid: "chef", name: "Chef", agent: true, member: true },
  { uid: "weather", name: "Weather", agent: true, member: false },
];

describe("mentions", () => {
  test("the mention at the caret", () => {
    expect(mentionAt("hi @ca", 6)).toEqual({ start: 3, query: "ca" });
    expect(mentionAt("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionAt("mail bob@ex", 11)).toBeUndefined();
    expect(mentionAt("hi @ca there", 12)).toBeUndefined();
  });
  test("suggestions: prefix of uid, name or a word of the name first", () => {
    expect(suggest(people, "ba").map((m) => m.uid)).toEqual(["carol"]);
    expect(suggest(people, "c").map((m) => m.uid)).toEqual(["carol", "chef"]);
    expect(suggest(people, "").map((m) => m.uid)).toEqual(["bob", "carol", "chef", "weather"]);
    expect(suggest(people, "zzz")).toEqual([]);
  });
  test("inserting replaces the typed part and what of the word follows", () => {
    expect(insertMention("hi @ca", 3, 6, "carol")).toEqual({ text: "hi @carol ", caret: 10 });
    expect(insertMention("hi @caro, see", 3, 6, "carol")).toEqual({ text: "hi @carol , see", caret: 10 });
  });
  test("agents mentioned that are not in the group", () => {
    expect(absentAgents("@weather will it rain? @chef too", people).map((m) => m.uid)).toEqual(["weather"]);
    expect(absentAgents("<@uid:weather>", people).map((m) => m.uid)).toEqual(["weather"]);
    expect(absentAgents("no mention of weather", people)).toEqual([]);
  });
});
