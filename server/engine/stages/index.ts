/** The stage registry: stage name → implementation. Stages later work adds plug in here. */
import type { StageName } from '../../profiles/types';
import type { Stage } from '../types';
import { answerStage } from './answer';
import { contextStage } from './context';
import { gateStage } from './gate';

export const STAGES: Readonly<Partial<Record<StageName, Stage>>> = Object.freeze({
  context: contextStage,
  answer: answerStage,
  gate: gateStage,
});
