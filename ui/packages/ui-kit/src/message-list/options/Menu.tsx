// An accessible menu (WAI-ARIA menu button pattern): a button with aria-haspopup="menu" opens a
// role="menu" of role="menuitem" buttons; arrows, Home and End move, Enter/Space choose, Escape
// and Tab close it and focus goes back to the button; a click outside closes it.
import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from "react";

export interface MenuItem {
  id: string;
  /** The accessible name (and the visible text unless content is given). */
  label: string;
  icon?: ReactNode;
  /** Visible content instead of icon + label (e.g. an emoji). */
  content?: ReactNode;
}

export interface MenuListProps {
  id?: string;
  label: string;
  items: readonly MenuItem[];
  onSelect(id: string): void;
  /** Close requested (Escape, Tab, a click outside); focus goes back to returnFocus first. */
  onClose(): void;
  /** The element that opened the menu: focus returns to it, and clicks on it do not count as outside. */
  returnFocus: RefObject<HTMLElement | null>;
  orientation?: "vertical" | "horizontal";
  className?: string;
}

/** Opens above its anchor when there is no room below. */
function placement(anchor: HTMLElement | null): "below" | "above" {
  if (!anchor || typeof window === "undefined") return "below";
  const r = anchor.getBoundingClientRect();
  return r.bottom + 280 > window.innerHeight && r.top > 280 ? "above" : "below";
}

/** A mouse press outside the menu (or picker) and its button closes it. */
export function useCloseOnOutsideClick(menu: RefObject<HTMLElement | null>, button: RefObject<HTMLElement | null>, onClose: () => void): void {
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  useEffect(() => {
    const onDown = (e: MouseEvent) => {
      const t = e.target as Node | null;
      if (!t || menu.current?.contains(t) || button.current?.contains(t)) return;
      onCloseRef.current();
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [menu, button]);
}

export function MenuList({ id, label, items, onSelect, onClose, returnFocus, orientation = "vertical", className }: MenuListProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(0);
  const [where] = useState(() => placement(returnFocus.current));
  const close = () => {
    returnFocus.current?.focus();
    onClose();
  };
  const closeRef = useRef(close);
  closeRef.current = close;
  useLayoutEffect(() => {
    ref.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
  }, []);
  useCloseOnOutsideClick(ref, returnFocus, onClose);

  const move = (to: number) => {
    const n = items.length;
    if (!n) return;
    const i = ((to % n) + n) % n;
    setActive(i);
    ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]')[i]?.focus();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const next = orientation === "horizontal" ? ["ArrowRight", "ArrowDown"] : ["ArrowDown", "ArrowRight"];
    const prev = orientation === "horizontal" ? ["ArrowLeft", "ArrowUp"] : ["ArrowUp", "ArrowLeft"];
    if (next.includes(e.key)) move(active + 1);
    else if (prev.includes(e.key)) move(active - 1);
    else if (e.key === "Home") move(0);
    else if (e.key === "End") move(items.length - 1);
    else if (e.key === "Escape" || e.key === "Tab") closeRef.current();
    else return;
    e.preventDefault();
    e.stopPropagation();
  };

  return (
    <div
      ref={ref}
      id={id}
      role="menu"
      aria-label={label}
      aria-orientation={orientation}
      className={`chat-menu chat-menu--${orientation} chat-menu--${where}${className ? " " + className : ""}`}
      onKeyDown={onKeyDown}
    >
      {items.map((item, i) => (
        <button
          key={item.id}
          type="button"
          role="menuitem"
          className="chat-menu__item"
          tabIndex={i === active ? 0 : -1}
          aria-label={item.content ? item.label : undefined}
          title={item.content ? item.label : undefined}
          onFocus={() => setActive(i)}
          onClick={() => {
            returnFocus.current?.focus();
            onSelect(item.id);
          }}
        >
          {item.content ?? (
            <>
              {item.icon}
              <span className="chat-menu__label">{item.label}</span>
            </>
          )}
        </button>
      ))}
    </div>
  );
}

export interface MenuButtonProps {
  /** The button's accessible name. */
  label: string;
  /** The menu's accessible name (default: label). */
  menuLabel?: string;
  icon: ReactNode;
  items: readonly MenuItem[];
  onSelect(id: string): void;
  orientation?: "vertical" | "horizontal";
  className?: string;
  /** Told when the menu opens or closes (the options stay visible while it is open). */
  onOpenChange?(open: boolean): void;
  buttonRef?: RefObject<HTMLButtonElement | null>;
}

export function MenuButton({ label, menuLabel, icon, items, onSelect, orientation, className, onOpenChange, buttonRef }: MenuButtonProps) {
  const [open, setOpen] = useState(false);
  const ownRef = useRef<HTMLButtonElement>(null);
  const btn = buttonRef ?? ownRef;
  const menuId = useId();
  const set = (v: boolean) => {
    setOpen(v);
    onOpenChange?.(v);
  };
  return (
    <span className={`chat-menu-button${className ? " " + className : ""}`}>
      <button
        ref={btn}
        type="button"
        className="chat-ui-icon-button"
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => set(!open)}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" && !open) {
            e.preventDefault();
            set(true);
          }
        }}
      >
        {icon}
      </button>
      {open ? (
        <MenuList
          id={menuId}
          label={menuLabel ?? label}
          items={items}
          orientation={orientation ?? "vertical"}
          returnFocus={btn}
          onClose={() => set(false)}
          onSelect={(id) => {
            set(false);
            onSelect(id);
          }}
        />
      ) : null}
    </span>
  );
}
