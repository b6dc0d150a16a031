import { defineOp } from '../../define.ts'
import { sized } from '../../worst-case.ts'
import { edited, items, WARM_DOC } from '../warm-documents.ts'
import { jsonDiff } from './diff.ts'
import { jsonDiffBody, jsonDiffResult } from './schema.ts'
import { MAX_DEPTH } from './types.ts'

export default defineOp({
  name: 'json.diff',
  family: 'json',
  http: {
    path: '/v1/json/diff',
    operationId: 'jsonDiff',
    summary: 'Diff two JSON documents',
    description:
      'Compares `left` with `right` and returns a jsondiffpatch delta and/or an RFC 6902 JSON Patch. ' +
      'Every patch is verified by applying it to `left` before it is returned; in the unlikely case that ' +
      'the patch derived from the delta does not reproduce `right`, a coarser patch (whole differing ' +
      'arrays and values replaced) is returned instead. Keys such as "__proto__" and "constructor" are ' +
      `ordinary keys. Documents nested deeper than ${MAX_DEPTH} levels are refused with ERR_VALIDATION. ` +
      'Numbers are exact: compared by exact decimal value (1, 1.0 and 1e0 are equal; 12345678901234567890 and ' +
      '12345678901234567891 are not) and written in the delta and the patch exactly as sent.',
  },
  body: jsonDiffBody,
  response: jsonDiffResult,
  run: jsonDiff,
  exactNumbers: true,
  parsedShapes: true,
  cost: { worst: 'a reversed array of numbers (every item moved)', usPerKiB: 1000 },
  // a reversed array of numbers: every item moved, the matching quadratic in the items
  worst: (bytes) =>
    sized(bytes, (n) => {
      const left = Array.from({ length: n }, (_, i) => i)
      return { left, right: [...left].reverse(), output: 'both' as const }
    }),
  warm: [
    {
      left: { items: items(600, 0) },
      right: { items: edited(items(600, 0)) },
      array_key: 'id',
      output: 'both',
    },
    { left: WARM_DOC, right: { ...WARM_DOC, name: 'anvil 2' } },
  ],
  job: {},
  examples: [
    {
      summary:
        'Diff two documents; by default the answer is a [jsondiffpatch delta](https://github.com/benjamine/jsondiffpatch/blob/master/docs/deltas.md)',
      body: {
        left: { name: 'anvil', version: '1.0.0', tags: ['json', 'api'] },
        right: { name: 'anvil', version: '1.1.0', tags: ['json', 'api', 'diff'] },
      },
      data: {
        equal: false,
        delta: { version: ['1.0.0', '1.1.0'], tags: { '2': ['diff'], _t: 'a' } },
        stats: { added: 1, removed: 0, changed: 1, moved: 0 },
      },
    },
    {
      summary:
        'Match array items by a field, and ask for an RFC 6902 JSON Patch as well (`output: "json_patch"` for ' +
        'the patch alone)',
      body: {
        left: {
          users: [
            { id: 1, name: 'Ada' },
            { id: 2, name: 'Bob' },
            { id: 3, name: 'Cy' },
          ],
        },
        right: {
          users: [
            { id: 3, name: 'Cy' },
            { id: 1, name: 'Ada L.' },
            { id: 4, name: 'Di' },
          ],
        },
        array_key: 'id',
        output: 'both',
      },
      data: {
        equal: false,
        delta: {
          users: {
            '1': { name: ['Ada', 'Ada L.'] },
            '2': [{ id: 4, name: 'Di' }],
            _t: 'a',
            _1: [{ id: 2, name: 'Bob' }, 0, 0],
            _2: ['', 0, 3],
          },
        },
        json_patch: [
          { op: 'remove', path: '/users/1' },
          { op: 'move', from: '/users/1', path: '/users/0' },
          { op: 'add', path: '/users/2', value: { id: 4, name: 'Di' } },
          { op: 'replace', path: '/users/1/name', value: 'Ada L.' },
        ],
        stats: { added: 1, removed: 1, changed: 1, moved: 1 },
      },
    },
    {
      summary: 'Key order does not matter; equal documents give an empty patch (and `"delta":{}`)',
      body: {
        left: { plan: 'free', limits: { rps: 5 } },
        right: { limits: { rps: 5 }, plan: 'free' },
        output: 'json_patch',
      },
      data: { equal: true, json_patch: [], stats: { added: 0, removed: 0, changed: 0, moved: 0 } },
    },
  ],
})
