// Icons of the message options (stroke = currentColor, decorative: the buttons carry labels).
import type { ReactNode } from "react";
import type { MessageOptionId } from "./optionList";

function Svg({ children }: { children: ReactNode }) {
  return (
    <svg className="chat-option-icon" width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2"
      strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      {children}
    </svg>
  );
}

export const optionIcons: Readonly<Record<MessageOptionId, () => ReactNode>> = {
  react: () => <Svg><circle cx="12" cy="12" r="9" /><path d="M8.5 14.5a4.5 4.5 0 0 0 7 0M9 9.5h.01M15 9.5h.01" /></Svg>,
  reply: () => <Svg><path d="M10 8L5 12l5 4" /><path d="M5 12h9a5 5 0 0 1 5 5v1" /></Svg>,
  replyInThread: () => <Svg><path d="M4 5h16v10H9l-5 4z" /><path d="M8 9h8M8 12h5" /></Svg>,
  translate: () => <Svg><path d="M4 5h8M8 3v2M6 5c0 4 3 7 6 8M10 5c0 3-3 7-6 8" /><path d="M13 21l4-9 4 9M14.5 18h5" /></Svg>,
  copy: () => <Svg><rect x="8" y="8" width="12" height="12" rx="2" /><path d="M16 8V6a2 2 0 0 0-2-2H6a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h2" /></Svg>,
  edit: () => <Svg><path d="M4 20h4L19 9l-4-4L4 16z" /><path d="M13 7l4 4" /></Svg>,
  info: () => <Svg><circle cx="12" cy="12" r="9" /><path d="M12 11v6M12 7.5v.5" /></Svg>,
  messagePrivately: () => <Svg><circle cx="12" cy="8" r="4" /><path d="M4 21a8 8 0 0 1 16 0" /></Svg>,
  markUnread: () => <Svg><rect x="3" y="6" width="18" height="13" rx="2" /><path d="M3 8l9 6 9-6" /><circle cx="19" cy="5" r="2.5" fill="currentColor" /></Svg>,
  flag: () => <Svg><path d="M5 21V4M5 4h11l-2 4 2 4H5" /></Svg>,
  delete: () => <Svg><path d="M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13" /></Svg>,
};

export const MoreIcon = () => <Svg><circle cx="5" cy="12" r="1" /><circle cx="12" cy="12" r="1" /><circle cx="19" cy="12" r="1" /></Svg>;
export const CloseIcon = () => <Svg><path d="M6 6l12 12M18 6L6 18" /></Svg>;
export const ListIcon = () => <Svg><path d="M9 6h11M9 12h11M9 18h11M4 6h.01M4 12h.01M4 18h.01" /></Svg>;
