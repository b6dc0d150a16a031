import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject'
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule'
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor'
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler'
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget'
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap'
import { Namespace } from 'kubernetes-models/v1/Namespace'
import { Secret } from 'kubernetes-models/v1/Secret'
import { Service } from 'kubernetes-models/v1/Service'
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount'

// The schema of every kind the manifests use, by apiVersion and kind: the Kubernetes API's OpenAPI schemas
// (kubernetes-models 5.1.0, generated from Kubernetes 1.36.0) and the KEDA and Prometheus Operator CRD
// schemas (@kubernetes-models/keda, @kubernetes-models/prometheus-operator), each compiled to an Ajv
// validator. `module` is where its TypeScript interface lives, for the unknown-field check.
type ModelClass = (new (data: unknown) => { validate(): void }) & { apiVersion: string; kind: string }

export const MODELS: { model: ModelClass; module: string }[] = [
  { model: Namespace, module: 'kubernetes-models/v1/Namespace' },
  { model: ServiceAccount, module: 'kubernetes-models/v1/ServiceAccount' },
  { model: ConfigMap, module: 'kubernetes-models/v1/ConfigMap' },
  { model: Secret, module: 'kubernetes-models/v1/Secret' },
  { model: Service, module: 'kubernetes-models/v1/Service' },
  { model: Deployment, module: 'kubernetes-models/apps/v1/Deployment' },
  { model: StatefulSet, module: 'kubernetes-models/apps/v1/StatefulSet' },
  { model: PodDisruptionBudget, module: 'kubernetes-models/policy/v1/PodDisruptionBudget' },
  { model: HorizontalPodAutoscaler, module: 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler' },
  { model: NetworkPolicy, module: 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy' },
  { model: ScaledObject, module: '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject' },
  {
    model: ServiceMonitor,
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
  },
  {
    model: PrometheusRule,
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule',
  },
] as unknown as { model: ModelClass; module: string }[]

export function modelFor(
  apiVersion: string,
  kind: string,
): { model: ModelClass; module: string } | undefined {
  return MODELS.find((m) => m.model.apiVersion === apiVersion && m.model.kind === kind)
}
