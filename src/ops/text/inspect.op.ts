import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { inspectText } from './inspect.ts'
import { inspectBody, textInspectResult } from './schema.ts'

// a family emoji: 11 UTF-16 units, 25 bytes of UTF-8
const FAMILY = '👩‍👩‍👧‍👦'

export default defineOp({
  name: 'text.inspect',
  family: 'text',
  http: {
    path: '/v1/text/inspect',
    operationId: 'textInspect',
    summary: 'Count and check text',
    description:
      'Counts UTF-16 units, code points, grapheme clusters, words, lines and UTF-8 bytes, and reports what ' +
      'can hide in text: lone surrogates, a BOM, mixed line endings, control, format and bidirectional ' +
      'characters, and whether the text is already in each normalization form.',
  },
  body: inspectBody,
  response: textInspectResult,
  run: inspectText,
  cost: { worst: 'grapheme segmentation of emoji ZWJ sequences', usPerKiB: 90 },
  worst: (bytes) => ({ input: fill(FAMILY, Math.floor(bytes / 25) * FAMILY.length) }),
  warm: [{ input: 'héllo wörld 👋🏽 '.repeat(50) }],
  examples: [
    {
      summary: 'Inspect text ("Cafe" + combining acute, a thumbs-up with a skin tone, a newline)',
      body: { input: 'Cafe\u0301 \u{1F44D}\u{1F3FD}\n' },
      data: {
        utf16_units: 11,
        code_points: 9,
        graphemes: 7,
        words: 1,
        lines: 1,
        utf8_bytes: 16,
        well_formed: true,
        lone_surrogate_position: null,
        ascii: false,
        has_bom: false,
        line_endings: { lf: 1, crlf: 0, cr: 0 },
        control_characters: 0,
        format_characters: 0,
        bidi_controls: 0,
        normalized: { nfc: false, nfd: true, nfkc: false, nfkd: true },
      },
    },
  ],
})
