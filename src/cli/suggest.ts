// "Did you mean ...?" for the command line: the library's one implementation (src/internal/suggest.ts).
export { closestName, didYouMean, editDistance } from '../internal/suggest.js';
