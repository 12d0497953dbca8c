import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/** The page's client bundle, built by `pnpm build` into `dist/client/` (see tsup.client.config.ts). */
export interface ViewerAssets {
  script: string
  style: string
}

/**
 * Where the bundle is: beside the built package (`dist/client/`), or — for code run from `src/` by the tests — in
 * the package's `dist/client/`.
 */
export function assetsDir(): string {
  const candidates = [new URL('./client/', import.meta.url), new URL('../dist/client/', import.meta.url)]
  for (const url of candidates) {
    const dir = fileURLToPath(url)
    if (existsSync(`${dir}viewer.js`)) return dir
  }
  throw new Error(
    `bridle view: the viewer's client bundle is missing (looked for viewer.js in ${candidates.map((u) => fileURLToPath(u)).join(' and ')}); run pnpm build`,
  )
}

let loaded: Promise<ViewerAssets> | undefined

/** Reads the bundle once per process. */
export function loadAssets(): Promise<ViewerAssets> {
  loaded ??= (async () => {
    const dir = assetsDir()
    const [script, style] = await Promise.all([
      readFile(`${dir}viewer.js`, 'utf8'),
      readFile(`${dir}viewer.css`, 'utf8'),
    ])
    return { script, style }
  })()
  return loaded
}
