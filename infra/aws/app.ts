// Entry of the CDK app (`npm run synth`, `npm run deploy`, see cdk.json).
import { App } from 'aws-cdk-lib';
import { buildTesseraApp } from './tessera-app.ts';

const app = new App();
buildTesseraApp(app);
app.synth();
