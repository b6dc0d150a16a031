import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'
import { ConsoleClient } from './console-client.ts'

export interface Tenant {
  client: ConsoleClient
  workspaceId: string
  projectId: string
  environmentId: string
  keyId: string
  key: string
}

// A signed-up person with a workspace, a project, a live environment and a key.
export async function tenant(app: FastifyInstance, email: string, ip?: string): Promise<Tenant> {
  const client = new ConsoleClient(app, ip)
  const { workspace } = await client.signUp(email)
  const ws = `/console/api/workspaces/${workspace.id}`
  const project = await client.call('POST', `${ws}/projects`, { name: 'web' })
  expect(project.statusCode).toBe(200)
  const projectId = project.json().data.id as string
  const env = await client.call('POST', `${ws}/projects/${projectId}/environments`, {
    name: 'production',
    mode: 'live',
  })
  expect(env.statusCode).toBe(200)
  const environmentId = env.json().data.id as string
  const key = await client.call('POST', `${ws}/keys`, { environment_id: environmentId, name: 'main' })
  expect(key.statusCode).toBe(200)
  return {
    client,
    workspaceId: workspace.id,
    projectId,
    environmentId,
    keyId: key.json().data.id,
    key: key.json().data.key,
  }
}
