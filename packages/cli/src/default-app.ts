import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { AppConfigError, loadAppConfig, parseAppConfig, type AppConfig } from './app-config.js'

/** The app `bridle` runs when there is no bridle.yaml: this repo's workspace and read_file plugins. */
export const DEFAULT_APP = {
  plugins: ['@bridle/plugin-workspace', '@bridle/plugin-read-file'],
  systemPrompt: {
    persona:
      'You help with the project in the working directory. Read files before answering questions about them, and say which file an answer came from.',
  },
}

/**
 * The app for a command: `--config FILE` when given, else `./bridle.yaml` when present, else the built-in
 * default app rooted at the current directory.
 */
export async function resolveApp(configFile: string | undefined, cwd = process.cwd()): Promise<AppConfig> {
  if (configFile !== undefined) {
    const path = resolve(cwd, configFile)
    // named as typed: the user sees the path they gave and where it pointed
    if (!existsSync(path))
      throw new AppConfigError(
        `-c ${configFile}: no such file: ${path} (-c names a bridle.yaml, relative to the current directory; without -c, ./bridle.yaml is used when present, else the built-in app)`,
      )
    return loadAppConfig(path)
  }
  const local = resolve(cwd, 'bridle.yaml')
  if (existsSync(local)) return loadAppConfig(local)
  return parseAppConfig(DEFAULT_APP, undefined, cwd)
}
