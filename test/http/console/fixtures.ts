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
  // a new workspace starts with project "default" and its live environment "production"
  const projects = await client.call('GET', `${ws}/projects`)
  expect(projects.statusCode).toBe(200)
  const [project] = projects.json().data.data as {
    id: string
    name: string
    environments: { id: string; name: string; mode: string }[]
  }[]
  expect(project).toMatchObject({ name: 'default', environments: [{ name: 'production', mode: 'live' }] })
  const projectId = project!.id
  const environmentId = project!.environments[0]!.id
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
