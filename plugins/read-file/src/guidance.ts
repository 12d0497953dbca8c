/** Name of the tool this plugin registers. */
export const READ_FILE_TOOL = 'read_file'
/** Name of the tool-guidance section. */
export const READ_FILE_GUIDANCE_SECTION = 'tool-guidance:read_file'
/** Order of the guidance section, inside the tool-guidance band (100–199). */
export const READ_FILE_GUIDANCE_ORDER = 110

/** The tool's model-facing description. */
export const READ_FILE_DESCRIPTION =
  'Read a UTF-8 text file from the workspace. Returns numbered lines ("<line number>\\t<text>") and a closing note ' +
  'that says whether the file ended or which offset to use to continue.'

/** The guidance section text: how and when to use `read_file`, and what it refuses. */
export const READ_FILE_GUIDANCE = [
  'Reading files: use the read_file tool.',
  '- `path` is relative to the workspace root (the working directory); absolute paths are accepted only inside it.',
  '- Paths that leave the workspace (through "..", an absolute path elsewhere, or a symlink) are refused.',
  '- Large files come back in pages: pass `offset` (1-based first line) and `limit` (number of lines) and follow the',
  '  closing note to continue. Long lines are cut with a marker.',
  '- Binary files are refused; do not retry them.',
  '- Line numbers are for reference only; they are not part of the file content.',
].join('\n')
