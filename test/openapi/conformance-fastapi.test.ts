import { runConformance } from './conformance.js';

runConformance('fastapi');
