import { useId, type ReactNode } from "react";

export interface FieldProps {
  label: string;
  value: string;
  onChange(v: string): void;
  error?: string | undefined;
  hint?: ReactNode;
  multiline?: boolean;
  rows?: number;
  required?: boolean;
  disabled?: boolean;
  placeholder?: string;
  mono?: boolean;
  name: string;
}

/** A labelled input or textarea with its hint and error (aria-describedby, aria-invalid). */
export function Field({ label, value, onChange, error, hint, multiline, rows, required, disabled, placeholder, mono, name }: FieldProps) {
  const id = useId();
  const hintId = useId();
  const errId = useId();
  const describedBy = [hint ? hintId : "", error ? errId : ""].filter(Boolean).join(" ") || undefined;
  const common = {
    id,
    name,
    value,
    disabled,
    placeholder,
    required,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy,
    className: `agentry-web__input${mono ? " agentry-web__input--mono" : ""}`,
  } as const;
  return (
    <div className="agentry-web__field" data-field={name}>
      <div className="agentry-web__label-row">
        <label htmlFor={id} className="agentry-web__label">
          {label}
        </label>
        {required ? (
          <span className="agentry-web__required" aria-hidden="true">
            *
          </span>
        ) : null}
      </div>
      {multiline ? (
        <textarea {...common} rows={rows ?? 3} onChange={(e) => onChange(e.target.value)} spellCheck={!mono} />
      ) : (
        <input {...common} onChange={(e) => onChange(e.target.value)} spellCheck={!mono} />
      )}
      {hint ? (
        <p id={hintId} className="agentry-web__hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errId} className="agentry-web__field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
