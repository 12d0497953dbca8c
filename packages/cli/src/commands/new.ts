import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { UsageError } from '../errors.js'
import { packageNameProblem, pluginPackageFiles, shortName } from '../scaffold/plugin-package.js'
import type { Io } from '../terminal.js'

/**
 * `bridle new plugin NAME [--dir DIR]`: writes a plugin package (the CLI README, "new plugin"; docs/writing-a-plugin.md
 * in the repository walks through it) into DIR (default: the name without its scope). A bad name or a folder that is
 * not empty is a usage error, and nothing is written.
 */
export async function newPlugin(name: string, options: { dir?: string }, io: Io): Promise<number> {
  const problem = packageNameProblem(name)
  if (problem) throw new UsageError(`new plugin ${JSON.stringify(name)}: ${problem}`)
  const dir = resolve(options.dir ?? shortName(name))
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new UsageError(`new plugin: ${dir} is not empty; choose another folder with --dir`)
  }
  const files = pluginPackageFiles(name)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const shown = relative(process.cwd(), dir) || '.'
  io.out(`created ${name} in ${shown}: ${Object.keys(files).join(', ')}\n`)
  io.out(`next: cd ${shown} && npm install && npm test && npx publint && npm publish\n`)
  return 0
}
