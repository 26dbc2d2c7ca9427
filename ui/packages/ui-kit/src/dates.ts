import type { CalendarObject } from "./types";

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

const pad = (n: number) => (n < 10 ? "0" + n : String(n));

const TOKEN = /\[([^\]]*)\]|YYYY|YY|MMMM|MMM|MM|M|dddd|ddd|DD|D|HH|H|hh|h|mm|ss|A|a/g;

/** formatDate renders d (local time) with a pattern of CalendarObject tokens. */
export function formatDate(d: Date, pattern: string): string {
  return pattern.replace(TOKEN, (tok: string, literal: string | undefined) => {
    if (literal !== undefined) return literal;
    const h = d.getHours();
    switch (tok) {
      case "YYYY": return String(d.getFullYear());
      case "YY": return String(d.getFullYear()).slice(-2);
      case "MMMM": return MONTHS[d.getMonth()] ?? "";
      case "MMM": return (MONTHS[d.getMonth()] ?? "").slice(0, 3);
      case "MM": return pad(d.getMonth() + 1);
      case "M": return String(d.getMonth() + 1);
      case "dddd": return DAYS[d.getDay()] ?? "";
      case "ddd": return (DAYS[d.getDay()] ?? "").slice(0, 3);
      case "DD": return pad(d.getDate());
      case "D": return String(d.getDate());
      case "HH": return pad(h);
      case "H": return String(h);
      case "hh": return pad(h % 12 === 0 ? 12 : h % 12);
      case "h": return String(h % 12 === 0 ? 12 : h % 12);
      case "mm": return pad(d.getMinutes());
      case "ss": return pad(d.getSeconds());
      case "A": return h < 12 ? "AM" : "PM";
      case "a": return h < 12 ? "am" : "pm";
    }
    return tok;
  });
}

function startOfDay(d: Date): number {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** The calendar bucket of d relative to now: today, yesterday, within the last week, older. */
export function calendarBucket(d: Date, now: Date = new Date()): keyof CalendarObject {
  const days = Math.round((startOfDay(now) - startOfDay(d)) / 86_400_000);
  if (days <= 0) return "today";
  if (days === 1) return "yesterday";
  if (days < 7) return "lastWeek";
  return "otherDays";
}

/**
 * formatCalendar picks the pattern of d's bucket from format, falling back to the component's
 * defaults for buckets the caller did not set.
 */
export function formatCalendar(d: Date, format: CalendarObject | undefined, defaults: Required<CalendarObject>, now: Date = new Date()): string {
  const bucket = calendarBucket(d, now);
  return formatDate(d, format?.[bucket] ?? defaults[bucket]);
}

/** Defaults of the message list's date separators and sticky date. */
export const separatorDefaults: Required<CalendarObject> = {
  today: "[Today]",
  yesterday: "[Yesterday]",
  lastWeek: "dddd",
  otherDays: "DD MMM, YYYY",
};

/** Defaults of a bubble's sent-at time. */
export const sentAtDefaults: Required<CalendarObject> = {
  today: "hh:mm A",
  yesterday: "hh:mm A",
  lastWeek: "hh:mm A",
  otherDays: "hh:mm A",
};

/** Defaults of the message information view. */
export const messageInfoDefaults: Required<CalendarObject> = {
  today: "[Today] hh:mm A",
  yesterday: "[Yesterday] hh:mm A",
  lastWeek: "dddd hh:mm A",
  otherDays: "DD MMM YYYY, hh:mm A",
};
