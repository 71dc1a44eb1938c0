/**
 * The GenAI semantic-convention names the hub's spans use, copied from @opentelemetry/semantic-conventions
 * 1.45.0 (its `incubating` entry point): the package asks code not to import unstable conventions at run
 * time but to copy them, as they may change in a minor release. Stable names (error.type, service.*) are
 * imported from the package itself.
 */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const ATTR_GEN_AI_REQUEST_TEMPERATURE = 'gen_ai.request.temperature';
export const ATTR_GEN_AI_REQUEST_TOP_P = 'gen_ai.request.top_p';
export const ATTR_GEN_AI_REQUEST_TOP_K = 'gen_ai.request.top_k';
export const ATTR_GEN_AI_REQUEST_STREAM = 'gen_ai.request.stream';
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';

export const GEN_AI_OPERATION_NAME_VALUE_CHAT = 'chat';
export const GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT = 'invoke_agent';

/**
 * `gen_ai.provider.name`: the conventions list no value for llama.cpp, and allow a custom one. Both backends
 * (the router and the embedded engine) are llama.cpp, and nothing above server/llm/ knows which runs.
 */
export const GEN_AI_PROVIDER_NAME_LLAMA_CPP = 'llama.cpp';

/** The hub's own attributes (ids, names and figures only). */
export const ATTR_HUB_REQUEST_ID = 'hub.request.id';
export const ATTR_HUB_PROFILE_ID = 'hub.profile.id';
export const ATTR_HUB_REQUESTED_MODEL = 'hub.requested_model';
export const ATTR_HUB_TURN_KIND = 'hub.turn.kind';
export const ATTR_HUB_OUTCOME = 'hub.outcome';
export const ATTR_HUB_STOPPED_AT = 'hub.turn.stopped_at';
export const ATTR_HUB_PIPELINE_ERROR = 'hub.turn.pipeline_error';
export const ATTR_HUB_MODEL_CALLS = 'hub.turn.model_calls';
export const ATTR_HUB_STAGES = 'hub.turn.stages';
export const ATTR_HUB_STAGE_NAME = 'hub.stage.name';
export const ATTR_HUB_STAGE_OCCURRENCE = 'hub.stage.occurrence';
export const ATTR_HUB_STAGE_INDEX = 'hub.stage.index';
export const ATTR_HUB_CALL_STAGE = 'hub.model_call.stage';
export const ATTR_HUB_QUEUE_WAIT_MS = 'hub.router.queue_wait_ms';
export const ATTR_HUB_ROUTE = 'hub.route';
export const ATTR_HUB_ROLE = 'hub.catalyst.role';
