import { defineOp } from '../../define.ts'
import { sized } from '../../worst-case.ts'
import { WARM_DOC } from '../warm-documents.ts'
import { applyJsonPatch } from './patch.ts'
import { patchBody, patchResult } from './schema.ts'

export default defineOp({
  name: 'json.patch',
  family: 'json',
  http: {
    path: '/v1/json/patch',
    operationId: 'patchJson',
    summary: 'Apply an RFC 6902 JSON Patch',
    description:
      'add, remove, replace, move, copy and test, with RFC 6901 pointers. A failed test is ERR_PATCH_TEST_FAILED ' +
      '{index, path}; a malformed operation or a path that does not exist is ERR_INVALID_PATCH {index, op, path, ' +
      'from?, reason}. The document is never partially patched. Numbers are exact: every number comes back ' +
      'as sent (12345678901234567890, 1.50, 1E400 untouched), and test compares them by exact decimal value ' +
      '(1.0 equals 1).',
    errors: ['ERR_INVALID_PATCH', 'ERR_PATCH_TEST_FAILED', 'ERR_COMPUTE_LIMIT'],
  },
  body: patchBody,
  response: patchResult,
  run: applyJsonPatch,
  exactNumbers: true,
  cost: {
    worst: 'thousands of add/remove ops on an array (copy: heavy)',
    usPerKiB: 48,
    // copy duplicates a subtree: its cost is the subtree's size, which the body's does not bound
    heavy: (input) =>
      !Array.isArray(input.patch) ||
      input.patch.some((o) => typeof o === 'object' && o !== null && (o as { op?: unknown }).op === 'copy'),
  },
  worst: (bytes) =>
    sized(bytes, (count) => ({
      document: { a: [0] },
      patch: Array.from({ length: count }, (_, i) =>
        i % 2 === 0
          ? { op: 'add' as const, path: '/a/0', value: i }
          : { op: 'remove' as const, path: '/a/0' },
      ),
    })),
  warm: [
    {
      document: WARM_DOC,
      patch: [
        { op: 'replace', path: '/name', value: 'x' },
        { op: 'add', path: '/items/-', value: { id: 1 } },
        { op: 'copy', from: '/nested', path: '/copy' },
        { op: 'remove', path: '/items/0' },
      ],
    },
  ],
  job: { progress: 'operations applied' },
  examples: [
    {
      summary: 'Apply an RFC 6902 patch',
      body: {
        document: { name: 'anvil', tags: ['json'] },
        patch: [
          { op: 'test', path: '/name', value: 'anvil' },
          { op: 'add', path: '/tags/-', value: 'patch' },
          { op: 'move', from: '/name', path: '/title' },
        ],
      },
      data: { result: { tags: ['json', 'patch'], title: 'anvil' } },
    },
    {
      summary: 'A failed `test` leaves the document untouched',
      body: { document: { version: 1 }, patch: [{ op: 'test', path: '/version', value: 2 }] },
      error: {
        type: 'invalid_request',
        message: 'Patch operation 0 (test "/version"): the value differs.',
        code: 'ERR_PATCH_TEST_FAILED',
        details: { index: 0, path: '/version', reason: 'the value differs' },
      },
    },
  ],
})
