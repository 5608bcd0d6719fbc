import { launchService } from '@careen/service';
import { maintenanceSessionService } from './maintenance-session.service';

launchService(maintenanceSessionService);
