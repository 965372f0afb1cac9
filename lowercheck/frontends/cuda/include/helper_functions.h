/* lowercheck's model of the CUDA samples' <helper_functions.h>: host-only helpers (timers, command
 * line, file I/O). Nothing a kernel uses; declared so that a launcher calling them parses. */
#pragma once
class StopWatchInterface {
 public:
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual void reset() = 0;
  virtual float getTime() = 0;
  virtual float getAverageTime() = 0;
};
bool sdkCreateTimer(StopWatchInterface **timer);
bool sdkDeleteTimer(StopWatchInterface **timer);
bool sdkStartTimer(StopWatchInterface **timer);
bool sdkStopTimer(StopWatchInterface **timer);
bool sdkResetTimer(StopWatchInterface **timer);
float sdkGetTimerValue(StopWatchInterface **timer);
float sdkGetAverageTimerValue(StopWatchInterface **timer);
bool checkCmdLineFlag(const int argc, const char **argv, const char *flag);
int getCmdLineArgumentInt(const int argc, const char **argv, const char *flag);
