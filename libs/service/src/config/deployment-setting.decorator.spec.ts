import { IsOptional, IsString } from 'class-validator';
import { DeploymentSetting, requiredSettings } from './deployment-setting.decorator';

class BaseConfig {
  @IsString()
  BASE_REQUIRED!: string;

  @IsOptional()
  @IsString()
  BASE_OPTIONAL?: string;
}

class AppConfig extends BaseConfig {
  @IsOptional()
  @IsString()
  @DeploymentSetting()
  FEATURE_PASSWORD?: string;

  @IsOptional()
  @IsString()
  TUNING = 'default';
}

class OtherConfig extends BaseConfig {
  @IsOptional()
  @IsString()
  @DeploymentSetting()
  OTHER_FEATURE?: string;
}

describe('requiredSettings', () => {
  it('lists what a config cannot start without and what it marks for deployments, inherited ones included', () => {
    expect(requiredSettings(AppConfig)).toEqual(['BASE_REQUIRED', 'FEATURE_PASSWORD']);
  });

  it("keeps one subclass's marks out of another's", () => {
    expect(requiredSettings(OtherConfig)).toEqual(['BASE_REQUIRED', 'OTHER_FEATURE']);
    expect(requiredSettings(BaseConfig)).toEqual(['BASE_REQUIRED']);
  });
});
