/**
 * The critical files `pnpm test:mutation` mutates, one group per package, and the vitest projects whose tests may
 * kill their mutants (the package's own tests plus the cross-package suites that drive it). TESTING.md explains
 * why these files: they decide what reaches the model, what is on disk, and what a past step looked like.
 */
export const groups = {
  scope: {
    mutate: ['packages/scope/src/waterfall.ts', 'packages/scope/src/scoped-layers.ts'],
    projects: ['packages/scope', 'packages/system-prompt'],
  },
  'system-prompt': {
    mutate: ['packages/system-prompt/src/assemble.ts'],
    projects: ['packages/system-prompt', 'packages/agent-loop'],
  },
  session: {
    mutate: [
      'packages/session/src/surface/request-header.ts',
      'packages/session/src/provability/digest.ts',
      'packages/session/src/surface/reconstruct.ts',
      'packages/session/src/surface/surface.ts',
      'packages/session/src/surface/step-cut.ts',
    ],
    projects: ['packages/session', 'packages/agent-loop', 'tests'],
  },
  'session-jsonl': {
    mutate: ['packages/session-jsonl/src/scan.ts', 'packages/session-jsonl/src/write-behind.ts'],
    projects: ['packages/session-jsonl'],
  },
  inbox: {
    mutate: ['packages/inbox/src/inbox.ts'],
    projects: ['packages/inbox', 'packages/agent-loop'],
  },
  tools: {
    mutate: ['packages/tools/src/pipeline.ts'],
    projects: ['packages/tools', 'packages/agent-loop'],
  },
  'agent-loop': {
    mutate: [
      'packages/agent-loop/src/stations/build-request.ts',
      'packages/agent-loop/src/stations/step.ts',
      'packages/agent-loop/src/stations/tool-calls.ts',
    ],
    projects: ['packages/agent-loop', 'tests'],
  },
  'read-file': {
    mutate: [
      'plugins/read-file/src/read-lines.ts',
      'plugins/read-file/src/confine.ts',
      'plugins/read-file/src/open-confined.ts',
    ],
    projects: ['plugins/read-file'],
  },
}
