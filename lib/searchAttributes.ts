import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';

/** The custom search attributes operators filter by in the Temporal UI; registered by temporal/devServer.ts. */
export const SA = {
  AccountId: defineSearchAttributeKey('AccountId', SearchAttributeType.KEYWORD),
  PipelineId: defineSearchAttributeKey('PipelineId', SearchAttributeType.INT),
  ScenarioId: defineSearchAttributeKey('ScenarioId', SearchAttributeType.INT),
  Step: defineSearchAttributeKey('Step', SearchAttributeType.KEYWORD),
  JobKind: defineSearchAttributeKey('JobKind', SearchAttributeType.KEYWORD),
};

export function jobSearchAttributes(a: { accountId: string; kind: string; step?: string | null; pipelineId?: number | null; scenarioId?: number | null }): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: SA.AccountId, value: a.accountId },
    { key: SA.JobKind, value: a.kind },
    ...(a.step ? [{ key: SA.Step, value: a.step }] : []),
    ...(a.pipelineId ? [{ key: SA.PipelineId, value: a.pipelineId }] : []),
    ...(a.scenarioId ? [{ key: SA.ScenarioId, value: a.scenarioId }] : []),
  ]);
}
