import { defineOp } from '../define.ts'
import { markRuns } from '../worst-case.ts'
import { nonStarterRun, normalizeText, STREAM_SAFE_RUN } from './normalize.ts'
import { normalizeBody, normalizeResult } from './schema.ts'

export default defineOp({
  name: 'text.normalize',
  family: 'text',
  http: {
    path: '/v1/text/normalize',
    operationId: 'textNormalize',
    summary: 'Unicode-normalize text',
    description:
      'Normalizes to NFC (the default), NFD, NFKC or NFKD (UAX #15) and says whether that changed the text. ' +
      'Compatibility forms (NFKC, NFKD) also fold look-alikes such as ligatures and full-width letters.',
  },
  body: normalizeBody,
  response: normalizeResult,
  run: normalizeText,
  cost: {
    worst: 'NFKC of runs of 30 combining marks (longer runs: heavy)',
    usPerKiB: 56,
    // runs of combining marks longer than UAX #15's stream-safe 30 are reordered at a quadratic cost
    heavy: (input, inlineBytes) =>
      typeof input.input !== 'string' ||
      input.input.length >= inlineBytes ||
      nonStarterRun(input.input, STREAM_SAFE_RUN) > STREAM_SAFE_RUN,
  },
  worst: (bytes) => ({ input: markRuns(bytes, 30), form: 'NFKC' as const }),
  warm: [{ input: 'é'.normalize('NFD').repeat(200), form: 'NFC' as const }],
  examples: [
    {
      summary: 'Normalize to NFC (an "e" and a combining acute become one "é")',
      body: { input: 'Cafe\u0301', form: 'NFC' },
      data: { output: 'Caf\u00e9', form: 'NFC', changed: true },
    },
  ],
})
