import { describe, expect, it } from "vitest";
import { calendarBucket, formatCalendar, formatDate, separatorDefaults } from "./dates";

describe("formatDate", () => {
  const d = new Date(2026, 10, 5, 14, 7, 9); // Thu 5 Nov 2026 14:07:09 local
  it.each([
    ["DD MMM, YYYY", "05 Nov, 2026"],
    ["D/M/YY", "5/11/26"],
    ["dddd hh:mm A", "Thursday 02:07 PM"],
    ["ddd H:mm:ss a", "Thu 14:07:09 pm"],
    ["[Today at] h:mm", "Today at 2:07"],
    ["MMMM", "November"],
  ])("%s", (pattern, want) => {
    expect(formatDate(d, pattern)).toBe(want);
  });
  it("renders midnight and noon on a 12-hour clock", () => {
    expect(formatDate(new Date(2026, 0, 1, 0, 5), "hh:mm A")).toBe("12:05 AM");
    expect(formatDate(new Date(2026, 0, 1, 12, 5), "h:mm a")).toBe("12:05 pm");
  });
});

describe("calendar buckets", () => {
  const now = new Date(2026, 10, 22, 0, 30);
  it("uses calendar days, not 24-hour spans", () => {
    expect(calendarBucket(new Date(2026, 10, 22, 0, 1), now)).toBe("today");
    expect(calendarBucket(new Date(2026, 10, 21, 23, 59), now)).toBe("yesterday");
    expect(calendarBucket(new Date(2026, 10, 16, 12), now)).toBe("lastWeek");
    expect(calendarBucket(new Date(2026, 10, 15, 12), now)).toBe("otherDays");
  });
  it("falls back to defaults for buckets the caller did not set", () => {
    const d = new Date(2026, 10, 1, 9);
    expect(formatCalendar(d, { today: "[T]" }, separatorDefaults, now)).toBe("01 Nov, 2026");
    expect(formatCalendar(new Date(2026, 10, 22, 0, 2), { today: "[Now-ish]" }, separatorDefaults, now)).toBe("Now-ish");
  });
});
