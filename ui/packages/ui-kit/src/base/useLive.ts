import { useEffect, useRef, type RefObject } from "react";

/** Whether the component is still mounted: answers that come after it is gone are not shown. */
export function useLive(): RefObject<boolean> {
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);
  return live;
}
