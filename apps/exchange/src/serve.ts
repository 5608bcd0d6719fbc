import { launchService } from '@careen/service';
import { exchangeService } from './exchange.service';

launchService(exchangeService);
