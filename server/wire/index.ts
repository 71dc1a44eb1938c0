/** Wire helpers every endpoint family shares: JSON bodies (size, depth), the one error mapping, OpenAI response shapes. */
export { tooDeepError, tooDeepField } from './body-depth';
export { jsonBody } from './body';
export { sendError } from './errors';
export { chatCompletion, chunkFrames, completionId } from './openai-shapes';
