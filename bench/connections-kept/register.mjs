// `--import`ed into the bench's gateway processes, this tree's and a baseline's (bench/child.ts):
// see hooks.mjs.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
