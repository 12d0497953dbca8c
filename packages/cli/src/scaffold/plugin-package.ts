import { createRequire } from 'node:module'
import { pluginSource, pluginTest } from './plugin-source.js'

/** npm's rule for a package name: lower case, URL-safe, optionally scoped, at most 214 characters. */
const NPM_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/

/** Why `name` cannot be a package name, or `undefined` when it can. */
export function packageNameProblem(name: string): string | undefined {
  if (name.length > 214) return 'a package name has at most 214 characters'
  if (!NPM_NAME.test(name)) return 'a package name is lower case, optionally scoped (@scope/name), with no spaces'
  return undefined
}

/** The Bridle packages a plugin builds on, and those its tests run it in. */
const PEERS = ['@bridle/llm', '@bridle/system-prompt', '@bridle/tools'] as const
const TEST_ONLY = ['@bridle/agent-loop', '@bridle/session', '@bridle/plugin-scripted-model'] as const

/** The version of `name` this CLI was installed with (the scaffold pins what it was tested against). */
function installedVersion(name: string): string {
  const require = createRequire(import.meta.url)
  return (require(`${name}/package.json`) as { version: string }).version
}

/** cordis and zod as the Bridle packages ask for them (their peer ranges), pinned to their lowest version for tests. */
function frameworkRanges(): Record<'cordis' | 'zod', string> {
  const require = createRequire(import.meta.url)
  const peers = (require('@bridle/llm/package.json') as { peerDependencies: Record<string, string> }).peerDependencies
  return { cordis: peers.cordis!, zod: peers.zod! }
}

const pin = (range: string) => range.replace(/^[\^~]/, '')

/** The short name of a package, for folders, section names and the README: `@you/bridle-notes` → `bridle-notes`. */
export const shortName = (name: string) => name.replace(/^@[^/]+\//, '')

/** Every file of a new plugin package called `name`, by path. */
export function pluginPackageFiles(name: string, year = new Date().getUTCFullYear()): Record<string, string> {
  const short = shortName(name)
  const prefix = short.replace(/^bridle-plugin-/, '').replace(/[^a-z0-9]+/g, '-')
  const framework = frameworkRanges()
  const bridle = Object.fromEntries([...PEERS, ...TEST_ONLY].map((dep) => [dep, installedVersion(dep)]))
  const manifest = {
    name,
    version: '0.1.0',
    description: `A Bridle plugin: notes the model keeps with the add_note tool (${short}).`,
    keywords: ['bridle', 'bridle-plugin', 'cordis'],
    license: 'MIT',
    type: 'module',
    exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' }, './package.json': './package.json' },
    main: './dist/index.js',
    types: './dist/index.d.ts',
    files: ['dist', 'README.md', 'LICENSE'],
    engines: { node: '>=20' },
    scripts: {
      build: 'tsc -p tsconfig.json',
      test: 'npm run build && node --test test/plugin.test.mjs',
      lint: 'publint',
      prepublishOnly: 'npm run build && publint',
    },
    peerDependencies: {
      ...Object.fromEntries(PEERS.map((dep) => [dep, `^${bridle[dep]}`])),
      cordis: framework.cordis,
      zod: framework.zod,
    },
    devDependencies: {
      ...Object.fromEntries([...PEERS, ...TEST_ONLY].map((dep) => [dep, bridle[dep]])),
      '@types/node': '20.19.43',
      cordis: pin(framework.cordis),
      publint: '0.3.25',
      typescript: '5.9.3',
      zod: pin(framework.zod),
    },
  }
  const tsconfig = {
    compilerOptions: {
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      declaration: true,
      outDir: 'dist',
      rootDir: 'src',
      skipLibCheck: true,
      types: [],
    },
    include: ['src'],
  }
  return {
    'package.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(tsconfig, null, 2)}\n`,
    'src/index.ts': pluginSource(name, prefix),
    'test/plugin.test.mjs': pluginTest(),
    'README.md': pluginReadme(name, prefix),
    LICENSE: mitLicense(`the authors of ${name}`, year),
    '.gitignore': 'node_modules/\ndist/\n',
  }
}

function pluginReadme(name: string, prefix: string): string {
  return `# ${name}

A [Bridle](https://github.com/bridle-dev/bridle) plugin: the model keeps short notes with an \`add_note\` tool, and
sees them in its runtime context at every step.

## Install

\`\`\`sh
npm install ${name} @bridle/llm @bridle/system-prompt @bridle/tools cordis zod
\`\`\`

The \`@bridle/*\` packages, cordis and zod are peer dependencies: the app has one copy of each, shared by every plugin.

## Use

In a \`bridle.yaml\`:

\`\`\`yaml
plugins:
  - package: "${name}"
    config: { maxNotes: 10 }
\`\`\`

Or in code: \`ctx.plugin(notes, { maxNotes: 10 })\` with \`import notes from '${name}'\`.

## What it contributes

| kind | name | what |
|---|---|---|
| section | \`${prefix}:guide\` (order 150) | tells the model to keep notes about \`{{cwd}}\` with \`add_note\` |
| runtime context | \`${prefix}:notes\` (order 60) | the notes so far (nothing while there are none) |
| tool | \`add_note\` | \`{ text: string }\`: adds a note; refuses once \`maxNotes\` are kept |

## Config

| field | default | what |
|---|---|---|
| \`maxNotes\` | 20 | how many notes the list keeps (a positive integer) |

A bad config fails when the plugin loads, naming the plugin and the field: \`${name}: invalid config: maxNotes: …\`.

## API

| export | what it is |
|---|---|
| default export | the plugin (\`{ name, inject, Config, apply }\`) |
| \`ConfigSchema\`, \`Config(raw)\` | the zod schema and the parser that throws a \`ConfigError\` |
| \`apply(ctx, config)\` | what cordis calls when the plugin loads |

## Events

None of its own.

## Develop

\`\`\`sh
npm install
npm test          # builds, then runs test/ against the scripted offline model
npx publint       # checks the package as npm will see it
npm publish
\`\`\`
`
}

function mitLicense(holder: string, year: number): string {
  return `MIT License

Copyright (c) ${year} ${holder}

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`
}
