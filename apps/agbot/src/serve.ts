import { launchService } from '@careen/service';
import { agbotService } from './agbot.service';

launchService(agbotService);
