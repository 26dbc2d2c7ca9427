// Files for the composer: picked with the button, pasted, or dropped on the composer; shown as
// previews (images as thumbnails) with a remove button, then uploaded one by one with progress.
import { Chat } from "@agentry/chat-sdk";
import { ChatMessageEvents, MessageStatus } from "@agentry/ui-kit";
import { useCallback, useEffect, useRef, useState, type ClipboardEvent, type DragEvent, type ReactElement } from "react";
import { errorText } from "../session";

/** The service's default upload limit: a larger file is refused here before it is sent (a
 * service configured lower answers 413, shown as the error). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
const MAX_FILES = 10;

export interface PendingFile {
  key: string;
  file: File;
  /** An object URL for image previews (revoked when the file leaves). */
  preview: string | undefined;
  /** Upload progress 0..1 while sending. */
  progress: number | undefined;
}

function mediaType(f: File): Chat.MediaType {
  if (f.type.startsWith("image/")) return "image";
  if (f.type.startsWith("video/")) return "video";
  if (f.type.startsWith("audio/")) return "audio";
  return "file";
}

function sizeText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export interface AttachmentsModel {
  items: PendingFile[];
  dragging: boolean;
  add(files: Iterable<File>): void;
  remove(key: string): void;
  /** Uploads every file (the caption goes with the first); a failure keeps the rest. */
  sendAll(caption: string): Promise<void>;
  onPaste(e: ClipboardEvent<HTMLTextAreaElement>): void;
  dropHandlers: {
    onDragOver(e: DragEvent): void;
    onDragLeave(e: DragEvent): void;
    onDrop(e: DragEvent): void;
  };
  PickButton(): ReactElement;
}

/** Sends the files one by one (the caption with the first), each removed once sent; the first failure stops with its file's name. */
async function sendEach(items: readonly PendingFile[], caption: string, o: { receiverId: string; receiverType: Chat.ReceiverType; parentMessageId: number | undefined },
  setItems: (update: (cur: PendingFile[]) => PendingFile[]) => void, remove: (key: string) => void): Promise<void> {
  const progress = (key: string, p: number | undefined) => setItems((cur) => cur.map((i) => (i.key === key ? { ...i, progress: p } : i)));
  let first = true;
  for (const item of items) {
    const m = new Chat.MediaMessage(o.receiverId, item.file, mediaType(item.file), o.receiverType);
    if (first && caption) m.setCaption(caption);
    if (o.parentMessageId) m.setParentMessageId(o.parentMessageId);
    m.setUploadProgressListener((p) => progress(item.key, p));
    progress(item.key, 0);
    try {
      const sent = await Chat.sendMediaMessage(m);
      ChatMessageEvents.ccMessageSent.next({ message: sent, status: MessageStatus.success });
    } catch (e) {
      progress(item.key, undefined);
      throw new Error(`${item.file.name} was not sent: ${errorText(e)}`);
    }
    first = false;
    remove(item.key);
  }
}

/** Files dragged over the composer: it shows the drop look, and a drop adds them. */
function useDropZone(add: (files: Iterable<File>) => void) {
  const [dragging, setDragging] = useState(false);
  const hasFiles = (e: DragEvent) => [...e.dataTransfer.types].includes("Files");
  return {
    dragging,
    dropHandlers: {
      onDragOver(e: DragEvent) {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDragging(true);
      },
      onDragLeave(e: DragEvent) {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
      },
      onDrop(e: DragEvent) {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDragging(false);
        add(e.dataTransfer.files);
      },
    },
  };
}

export function useAttachments(o: {
  receiverId: string;
  receiverType: Chat.ReceiverType;
  parentMessageId: number | undefined;
  onError(text: string): void;
}): AttachmentsModel {
  const [items, setItems] = useState<PendingFile[]>([]);
  const input = useRef<HTMLInputElement>(null);
  const seq = useRef(0);
  const itemsRef = useRef(items);
  itemsRef.current = items;
  const opts = useRef(o);
  opts.current = o;

  // Previews are released when the composer goes.
  useEffect(() => () => itemsRef.current.forEach((i) => i.preview && URL.revokeObjectURL(i.preview)), []);

  const add = useCallback((files: Iterable<File>) => {
    const next: PendingFile[] = [];
    for (const f of files) {
      if (f.size > MAX_FILE_BYTES) {
        opts.current.onError(`${f.name} is larger than ${sizeText(MAX_FILE_BYTES)}`);
        continue;
      }
      next.push({ key: `f${++seq.current}`, file: f, preview: f.type.startsWith("image/") ? URL.createObjectURL(f) : undefined, progress: undefined });
    }
    setItems((cur) => {
      const all = [...cur, ...next];
      for (const dropped of all.slice(MAX_FILES)) if (dropped.preview) URL.revokeObjectURL(dropped.preview);
      if (all.length > MAX_FILES) opts.current.onError(`At most ${MAX_FILES} files at once`);
      return all.slice(0, MAX_FILES);
    });
  }, []);

  const remove = useCallback((key: string) => {
    setItems((cur) => {
      const gone = cur.find((i) => i.key === key);
      if (gone?.preview) URL.revokeObjectURL(gone.preview);
      return cur.filter((i) => i.key !== key);
    });
  }, []);

  const sendAll = useCallback((caption: string) => sendEach(itemsRef.current, caption, opts.current, setItems, remove), [remove]);

  const onPaste = useCallback(
    (e: ClipboardEvent<HTMLTextAreaElement>) => {
      const files = [...e.clipboardData.files];
      if (!files.length) return;
      e.preventDefault();
      add(files);
    },
    [add],
  );

  const { dragging, dropHandlers } = useDropZone(add);
  const PickButton = useCallback(
    () => (
      <>
        <input ref={input} type="file" multiple hidden onChange={(e) => {
          if (e.target.files) add(e.target.files);
          e.target.value = "";
        }} aria-hidden="true" tabIndex={-1} />
        <button type="button" className="agentry-web__button agentry-web__button--quiet agentry-web__attach" aria-label="Attach files"
          onClick={() => input.current?.click()}>
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
            <path d="M16.5 6.5v10a4.5 4.5 0 0 1-9 0V5a3 3 0 0 1 6 0v10.5a1.5 1.5 0 0 1-3 0V6.5" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" />
          </svg>
        </button>
      </>
    ),
    [add],
  );

  return { items, dragging, add, remove, sendAll, onPaste, dropHandlers, PickButton };
}

/** The files waiting in the composer. */
export function Attachments({ files }: { files: AttachmentsModel }) {
  if (!files.items.length) return null;
  return (
    <ul className="agentry-web__files" aria-label="Files to send">
      {files.items.map((f) => (
        <li key={f.key} className="agentry-web__file">
          {f.preview ? <img className="agentry-web__file-thumb" src={f.preview} alt="" /> : <span className="agentry-web__file-icon" aria-hidden="true">📄</span>}
          <span className="agentry-web__file-text">
            <span className="agentry-web__file-name">{f.file.name}</span>
            <span className="agentry-web__file-size">{sizeText(f.file.size)}</span>
          </span>
          {f.progress !== undefined ? (
            <progress className="agentry-web__file-progress" max={1} value={f.progress} aria-label={`Uploading ${f.file.name}`} />
          ) : (
            <button type="button" className="agentry-web__button agentry-web__button--quiet" aria-label={`Remove ${f.file.name}`} onClick={() => files.remove(f.key)}>
              <span aria-hidden="true">✕</span>
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}
