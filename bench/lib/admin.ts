import type { Gateway } from './processes.ts'

// Limits raised far past any benchmark's load, so that it measures the gateway's work, not its refusals
export const UNLIMITED = {
  key_rate_per_second: 1_000_000,
  workspace_rate_per_second: 1_000_000,
  monthly_quota: 2_000_000_000,
}

// A workspace and key on a running gateway, through its admin API.
export async function workspaceKey(
  gateway: Gateway,
  plan: 'free' | 'pro' | 'business',
  overrides: Record<string, number> = {},
): Promise<string> {
  const headers = { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' }
  const ws = await fetch(`${gateway.adminUrl}/admin/workspaces`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: `bench-${plan}`, plan }),
  }).then((r) => r.json() as Promise<{ data: { id: string } }>)
  if (Object.keys(overrides).length > 0) {
    await fetch(`${gateway.adminUrl}/admin/workspaces/${ws.data.id}`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ overrides }),
    })
  }
  const key = await fetch(`${gateway.adminUrl}/admin/keys`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ workspace_id: ws.data.id }),
  }).then((r) => r.json() as Promise<{ data: { key: string } }>)
  return key.data.key
}
