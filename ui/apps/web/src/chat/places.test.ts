import { describe, expect, test } from "vitest";
import { parsePath, pathOf } from "./places";

describe("places", () => {
  test("round trip", () => {
    for (const p of [{ kind: "group", id: "general" }, { kind: "user", id: "bob" }, { kind: "group", id: "a b/c", thread: 42 }] as const) {
      expect(parsePath(pathOf(p))).toEqual(p);
    }
    expect(pathOf(undefined)).toBe("/");
  });
  test("anything else is no place", () => {
    for (const s of ["/", "/admin", "/group", "/group/", "/team/x", "/group/x/thread/abc", "/group/%E0%A4%A/x", "/user/x/thread/1/more"]) {
      expect(parsePath(s), s).toBeUndefined();
    }
  });
});
