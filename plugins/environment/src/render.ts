import type { EnvironmentConfig } from './config.js'

/**
 * The runtime-context text for a config: a title line, then `environment`, `region` and the labels in code-unit
 * order of their names, so the snapshot is byte-identical whatever order the config listed them in.
 */
export function renderEnvironment(config: EnvironmentConfig): string {
  const lines = ['Deployment:', `environment: ${config.environment}`, `region: ${config.region}`]
  const labels = Object.entries(config.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  for (const [name, value] of labels) lines.push(`${name}: ${value}`)
  return lines.join('\n')
}
