import { useEffect, useState } from 'preact/hooks'

/** Timeline items rendered with the page's first frame, and how many more each following frame adds. */
const FIRST = 24
const BATCH = 48

/**
 * How many of `total` timeline items to render now. A session of hundreds of turns would otherwise build tens of
 * thousands of elements before anything is painted, though the first screen shows only the first few turns; so the
 * rest are added after that frame, a batch per frame, and the whole timeline is there a moment later.
 */
export function useRevealed(total: number): number {
  const [shown, setShown] = useState(FIRST)
  useEffect(() => {
    if (shown >= total) return
    let timer: ReturnType<typeof setTimeout> | undefined
    // the next batch waits for the frame that shows this one
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setShown((n) => n + BATCH), 0)
    })
    return () => {
      cancelAnimationFrame(frame)
      if (timer !== undefined) clearTimeout(timer)
    }
  }, [shown, total])
  return Math.min(shown, total)
}
