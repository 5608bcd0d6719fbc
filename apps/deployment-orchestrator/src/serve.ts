import { launchService } from '@careen/service';
import { deploymentOrchestratorService } from './deployment-orchestrator.service';

launchService(deploymentOrchestratorService);
