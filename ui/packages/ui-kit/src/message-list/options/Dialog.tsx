// A modal dialog: role="dialog", aria-modal, labelled by its title; focus moves in, Tab stays
// inside, Escape (or the backdrop, or the close button) closes it and focus returns to where
// it was. Rendered in a portal next to the closest .chat wrapper (so the design tokens apply
// and no scroll container clips it).
import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode, type RefObject } from "react";
import { createPortal } from "react-dom";
import { CloseIcon } from "./icons";

export interface DialogProps {
  title: string;
  onClose(): void;
  /** An element of the list: the dialog goes into its closest .chat wrapper. */
  anchor: RefObject<HTMLElement | null>;
  children: ReactNode;
  /** Buttons at the bottom. */
  footer?: ReactNode;
  className?: string;
  /** Text describing the dialog (aria-describedby). */
  description?: string;
}

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Tab and Shift+Tab go round the focusable controls inside el. */
function trapTab(e: KeyboardEvent<HTMLElement>, el: HTMLElement): void {
  const items = [...el.querySelectorAll<HTMLElement>(FOCUSABLE)];
  const first = items[0];
  const last = items[items.length - 1];
  const at = document.activeElement;
  const out = !el.contains(at);
  if (!first || !last) e.preventDefault();
  else if (e.shiftKey && (at === first || out)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (at === last || out)) {
    e.preventDefault();
    first.focus();
  }
}

export function Dialog({ title, onClose, anchor, children, footer, className, description }: DialogProps) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const descId = useId();
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;

  useEffect(() => {
    const back = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const el = ref.current;
    // The marked control, else the first one below the header (not the close button).
    const controls = el ? [...el.querySelectorAll<HTMLElement>(FOCUSABLE)] : [];
    const first = el?.querySelector<HTMLElement>("[data-autofocus]") ?? controls.find((c) => !c.closest(".chat-dialog__header")) ?? el;
    first?.focus();
    return () => {
      if (back && back.isConnected) back.focus();
    };
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      onCloseRef.current();
      return;
    }
    if (e.key === "Tab" && ref.current) trapTab(e, ref.current);
  };

  const target = anchor.current?.closest<HTMLElement>(".chat") ?? document.body;
  return createPortal(
    <div className="chat-message-list-overlay">
      <div
        className="chat-dialog-backdrop"
        onMouseDown={(e) => {
          if (e.target === e.currentTarget) onCloseRef.current();
        }}
      >
        <div
          ref={ref}
          role="dialog"
          aria-modal="true"
          aria-labelledby={titleId}
          aria-describedby={description ? descId : undefined}
          tabIndex={-1}
          className={`chat-dialog${className ? " " + className : ""}`}
          onKeyDown={onKeyDown}
        >
          <div className="chat-dialog__header">
            <h2 id={titleId} className="chat-dialog__title">
              {title}
            </h2>
            <button type="button" className="chat-ui-icon-button chat-dialog__close" aria-label="Close" title="Close" onClick={() => onCloseRef.current()}>
              <CloseIcon />
            </button>
          </div>
          {description ? (
            <p id={descId} className="chat-dialog__description">
              {description}
            </p>
          ) : null}
          <div className="chat-dialog__body">{children}</div>
          {footer ? <div className="chat-dialog__footer">{footer}</div> : null}
        </div>
      </div>
    </div>,
    target,
  );
}
