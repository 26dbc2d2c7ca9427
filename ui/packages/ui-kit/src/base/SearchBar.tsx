import { useId } from "react";
import { SearchIcon } from "./Icons";

export interface SearchBarProps {
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  /** The accessible name of the input (a visually hidden label). */
  label: string;
}

/** SearchBar is a labelled search input (chat-search-bar). */
export function SearchBar({ value, onChange, placeholder = "Search", label }: SearchBarProps) {
  const id = useId();
  return (
    <div className="chat-search-bar" role="search">
      <label htmlFor={id} className="chat-visually-hidden">{label}</label>
      <SearchIcon className="chat-search-bar__icon" />
      <input id={id} className="chat-search-bar__input" type="search" value={value} placeholder={placeholder}
        autoComplete="off" spellCheck={false} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}
