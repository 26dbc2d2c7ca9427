import { useEffect, useRef, useState } from "react";
import { Chat } from "@agentry/chat-sdk";
import type { ChatTextFormatter } from "../../types";
import { TextContent } from "./TextContent";

/**
 * useObjectUrl fetches a media URL with the session's token (a plain <img src> cannot send the
 * bearer header) and hands out an object URL, revoked when the URL changes or on unmount.
 */
export function useObjectUrl(url: string | undefined, enabled = true): { src?: string; failed: boolean } {
  const [state, setState] = useState<{ url?: string; src?: string; failed: boolean }>({ failed: false });
  useEffect(() => {
    if (!url || !enabled) return;
    let cancelled = false;
    let objectUrl: string | undefined;
    Chat.fetchMedia(url).then(
      (blob) => {
        if (cancelled) return;
        objectUrl = URL.createObjectURL(blob);
        setState({ url, src: objectUrl, failed: false });
      },
      () => {
        if (!cancelled) setState({ url, failed: true });
      },
    );
    return () => {
      cancelled = true;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [url, enabled]);
  // A state left from a previous URL is not this URL's.
  return state.url === url ? (state.src ? { src: state.src, failed: false } : { failed: state.failed }) : { failed: false };
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A file attachment: fetched only when asked for, then saved through a temporary link. */
function FileDownload({ url, name, bytes }: { url: string; name: string; bytes: number }) {
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const lastUrl = useRef<string | undefined>(undefined);
  useEffect(() => {
    // Revoke the last download's URL when the bubble goes away.
    return () => {
      if (lastUrl.current) URL.revokeObjectURL(lastUrl.current);
    };
  }, []);
  const download = async () => {
    setBusy(true);
    setFailed(false);
    try {
      const blob = await Chat.fetchMedia(url);
      if (lastUrl.current) URL.revokeObjectURL(lastUrl.current);
      lastUrl.current = URL.createObjectURL(blob);
      const a = document.createElement("a");
      a.href = lastUrl.current;
      a.download = name || "file";
      a.click();
    } catch {
      setFailed(true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="chat-file-bubble">
      <span className="chat-file-bubble__name">{name || "File"}</span>
      <span className="chat-file-bubble__size">{size(bytes)}</span>
      <button type="button" className="chat-file-bubble__download" onClick={() => void download()} disabled={busy}>
        {busy ? "Downloading…" : failed ? "Retry download" : "Download"}
        <span className="chat-visually-hidden"> {name}</span>
      </button>
    </div>
  );
}

export interface MediaContentProps {
  message: Chat.MediaMessage;
  formatters: readonly ChatTextFormatter[];
}

/** Image, video, audio or file content with its caption. */
export function MediaContent({ message, formatters }: MediaContentProps) {
  const a = message.getAttachment();
  const type = message.getType();
  const playable = type === "image" || type === "video" || type === "audio";
  const { src, failed } = useObjectUrl(a?.getUrl(), playable);
  const caption = message.getCaption();
  const name = a?.getName() ?? "";
  let body;
  if (!a) body = <span className="chat-media-bubble__missing">Attachment unavailable</span>;
  else if (!playable) body = <FileDownload url={a.getUrl()} name={name} bytes={a.getSize()} />;
  else if (failed) body = <span className="chat-media-bubble__missing">Could not load {name || type}</span>;
  else if (!src) body = <span className={`chat-media-bubble__placeholder chat-media-bubble__placeholder--${type}`} role="img" aria-label={`Loading ${type}`} />;
  else if (type === "image") body = <img className="chat-image-bubble__image" src={src} alt={caption || name || "Image"} />;
  else if (type === "video") body = <video className="chat-video-bubble__video" src={src} controls preload="metadata" aria-label={name || "Video"} />;
  else body = <audio className="chat-audio-bubble__audio" src={src} controls preload="metadata" aria-label={name || "Audio"} />;
  return (
    <div className={`chat-media-bubble chat-${type}-bubble`}>
      {body}
      {caption ? <TextContent message={message} text={caption} formatters={formatters} /> : null}
    </div>
  );
}
