import { describe, expect, it } from 'vitest'
import { parseAppConfig } from '../src/index.js'
import { appSecrets } from '../src/model-selection.js'
import { holdSecrets } from '@bridle/llm'
import { envSecrets, holdEnvSecrets, redactingIo } from '../src/redaction.js'
import { oneLine, type Io } from '../src/terminal.js'

describe('CLI output redaction', () => {
  it('knows the CLI key variables, the apiKeyEnv of every llm-openai row (DEEPSEEK_API_KEY by default) and its credential headers', () => {
    const env = {
      DEEPSEEK_API_KEY: 'sk-deep-000111222',
      BRIDLE_API_KEY: 'sk-bridle-333444',
      OPENAI_API_KEY: 'sk-openai-555666777',
      OTHER: 'x',
    }
    expect(envSecrets(env)).toEqual(['sk-deep-000111222', 'sk-bridle-333444'])
    const app = parseAppConfig(
      {
        plugins: [
          {
            package: '@bridle/llm-openai',
            config: { provider: 'o', baseURL: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' },
          },
          { package: '@bridle/llm-openai' },
          { package: '@bridle/llm-openai', config: { provider: 'l', baseURL: 'http://127.0.0.1:1', apiKeyEnv: null } },
          {
            package: '@bridle/llm-openai',
            config: {
              provider: 'h',
              baseURL: 'http://h/v1',
              apiKeyEnv: null,
              headers: { 'x-api-key': 'hdr-secret-42', 'x-title': 'My App' },
            },
          },
          '@bridle/plugin-read-file',
        ],
      },
      undefined,
      '/tmp/app',
    )
    expect(appSecrets(app, env)).toEqual(['sk-openai-555666777', 'sk-deep-000111222', 'hdr-secret-42'])
  })

  it('redacts every write, including secrets the process learns after the Io was made (at boot)', () => {
    const written: string[] = []
    const raw: Io = { out: (t) => void written.push(t), err: (t) => void written.push(t), color: false }
    holdEnvSecrets({ BRIDLE_API_KEY: 'sk-first-123456', BRIDLE_BASE_URL: 'http://h/v1?api-key=q-secret-99887' })
    const io = redactingIo(raw)
    io.out('a sk-first-123456 b q-secret-99887\n')
    holdSecrets('sk-later-7890123')
    io.err('bridle: failed for sk-later-7890123 at http://u:p@host/\n')
    expect(written).toEqual([
      'a [redacted] b [redacted]\n',
      'bridle: failed for [redacted] at http://[redacted]@host/\n',
    ])
  })

  it('oneLine redacts before it cuts: a key across the cut leaves no prefix', () => {
    holdSecrets('sk-oneline-0123456789abcdef')
    const text = `${'x'.repeat(89)} sk-oneline-0123456789abcdef`
    expect(oneLine(text, 100)).toBe(`${'x'.repeat(89)} [redacted]`)
    expect(oneLine(`${'x'.repeat(95)} sk-oneline-0123456789abcdef`, 100)).toBe(`${'x'.repeat(95)} [re…`)
  })
})
