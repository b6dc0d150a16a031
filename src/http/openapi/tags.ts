import { CATALOG } from '../../ops/catalog.ts'

// The operations' tags, in the order a reader meets them, and the groups the reference page shows them
// in (`x-tagGroups`, which Scalar and Redoc read): the keyed /v1 families first, in the catalog's order
// (each declared by its src/ops/<family>/family.ts), and the jobs, then the service's own endpoints, then
// the console's cookie-session API apart from the public API. A tag a route uses must be in a group
// (test/http/openapi/tags.test.ts): a page with groups hides a tag that is in none.
export interface TagGroup {
  name: string
  tags: { name: string; description: string }[]
}

export const TAG_GROUPS: readonly TagGroup[] = [
  {
    name: 'API (/v1, API key)',
    tags: [
      ...CATALOG.families.map((f) => ({ name: f.tag, description: f.description })),
      { name: 'Jobs', description: 'Operations run as async jobs (paid plans)' },
    ],
  },
  {
    name: 'Service',
    tags: [{ name: 'Meta', description: 'Liveness and readiness, without a key' }],
  },
  {
    name: 'Console API (session cookie)',
    tags: [
      {
        name: 'Console',
        description:
          "What the console's pages call, with a person's session cookie (not an API key); not the public API",
      },
    ],
  },
  {
    name: 'Operators (internal listener)',
    tags: [{ name: 'Admin', description: 'Workspaces, plans, keys and usage, with ADMIN_TOKEN' }],
  },
]

// The document's `tags` (in order) and `x-tagGroups`, for the tags its operations use.
export function tagsOf(used: ReadonlySet<string>): {
  tags: { name: string; description: string }[]
  'x-tagGroups': { name: string; tags: string[] }[]
} {
  const groups = TAG_GROUPS.map((g) => ({
    name: g.name,
    tags: g.tags.filter((t) => used.has(t.name)),
  })).filter((g) => g.tags.length > 0)
  return {
    tags: groups.flatMap((g) => g.tags),
    'x-tagGroups': groups.map((g) => ({ name: g.name, tags: g.tags.map((t) => t.name) })),
  }
}
