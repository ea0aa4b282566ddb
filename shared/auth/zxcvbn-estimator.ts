// zxcvbn with its keyboard graphs and English messages, and no word lists (password-strength.ts sets
// them per check). Imported by name, so a bundle keeps these two and drops the lists beside them:
// language-common declares no side effects, and language-en's messages are a file of their own
// (its index builds an object of every list, which esbuild keeps once anything of it is imported).
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs } from '@zxcvbn-ts/language-common';
import translations from '@zxcvbn-ts/language-en/dist/translations.mjs';

export function newEstimator(): ZxcvbnFactory {
  return new ZxcvbnFactory({ graphs: adjacencyGraphs, translations });
}
