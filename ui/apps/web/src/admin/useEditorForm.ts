// The state both admin editors share: the form's values, which fields the admin touched, the
// server's error at the field it names, the status line and whether a request is under way.
import { Chat } from "@agentry/chat-sdk";
import { useState } from "react";
import { errorText } from "../session";
import { forPeople, type FieldError } from "../validate";

export interface EditorForm<F> {
  form: F;
  setForm(update: (f: F) => F): void;
  busy: boolean;
  status: string;
  setStatus(s: string): void;
  /** The error shown at a field: the server's, else the rule it breaks once touched. */
  shown(field: string): string | undefined;
  /** An input's onChange for a field. */
  set(field: keyof F & string): (value: string) => void;
  /** Saves when every field passes (else marks them all), putting the server's error at the field fieldOf names. */
  submit(write: () => Promise<void>, fieldOf: (e: Chat.ChatException) => string | undefined): Promise<void>;
  /** Runs a request with the editor busy; failed gets what it threw. */
  run(request: () => Promise<void>, failed: (e: unknown) => void): Promise<void>;
}

/** fields: every field of the form; errs: the rules the values break now, by field. */
export function useEditorForm<F>(initial: () => F, fields: readonly string[], errs: (form: F) => Record<string, string>): EditorForm<F> {
  const [form, setForm] = useState<F>(initial);
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [serverError, setServerError] = useState<FieldError | undefined>();
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  const broken = errs(form);
  const run = async (request: () => Promise<void>, failed: (e: unknown) => void) => {
    setBusy(true);
    try {
      await request();
    } catch (e) {
      failed(e);
    } finally {
      setBusy(false);
    }
  };
  return {
    form, setForm, busy, status, setStatus, run,
    shown(f) {
      const m = serverError?.field === f ? serverError.message : touched[f] ? broken[f] : undefined;
      return m === undefined ? undefined : forPeople(m);
    },
    set: (f) => (v) => {
      setForm((x) => ({ ...x, [f]: v }));
      setTouched((t) => ({ ...t, [f]: true }));
      if (serverError?.field === f) setServerError(undefined);
      setStatus("");
    },
    async submit(write, fieldOf) {
      setTouched(Object.fromEntries(fields.map((f) => [f, true])));
      setServerError(undefined);
      if (Object.keys(broken).length) return setStatus("Fix the fields marked above.");
      await run(write, (e) => {
        const field = e instanceof Chat.ChatException ? fieldOf(e) : undefined;
        if (field) setServerError({ field, message: (e as Error).message });
        setStatus(`Not saved: ${forPeople(errorText(e))}`);
      });
    },
  };
}

/** Field errors by field: the first for each. */
export function errorMap(errs: readonly FieldError[]): Record<string, string> {
  const m: Record<string, string> = {};
  for (const e of errs) m[e.field] ??= e.message;
  return m;
}
