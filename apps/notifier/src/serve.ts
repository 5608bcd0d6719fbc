import { launchService } from '@careen/service';
import { notifierService } from './notifier.service';

launchService(notifierService);
