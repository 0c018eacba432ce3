/* Model of one MWUMKL round on sonar's kernel table (docs/BENCHMARKS.md, "Cost of the
 * learned kernels' selection"): 732 kernels, a 104-point point-major table, SS distinct
 * chosen points; per round, h_i += hy*(K_i[:,p] - K_i[:,r]) and acc += w_i*h_i for every
 * kernel. Build and run (f64 columns, then f32), 75 chosen points:
 *   gcc -O3 -march=native -DSS=75 -DT=double -o /tmp/rb scripts/round_model/table_round.c && /tmp/rb
 *   gcc -O3 -march=native -DSS=75 -DT=float  -o /tmp/rb scripts/round_model/table_round.c && /tmp/rb
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <stdint.h>
#ifndef T
#define T double
#endif
int main(int argc,char**argv){
  int M=732,N=104; size_t len=(size_t)M*N*N;
  T*t=aligned_alloc(64,len*sizeof(T));
  for(size_t i=0;i<len;i++) t[i]=(T)((i%977)*1e-3);
  double*h=calloc(M*N,8), hy[104]; for(int j=0;j<N;j++) hy[j]=(j&1)?0.5:-0.5;
  double*acc=calloc(N,8);
  unsigned s=1; struct timespec a,b; clock_gettime(CLOCK_MONOTONIC,&a);
  int R=133*20;
  for(int round=0;round<R;round++){
    s=s*1103515245+12345; int p=(s>>8)%SS; s=s*1103515245+12345; int r=(s>>8)%SS;
    for(int j=0;j<N;j++) acc[j]=0;
    for(int i=0;i<M;i++){ T*kp=t+((size_t)p*M+i)*N,*kr=t+((size_t)r*M+i)*N; double*hi=h+i*N; double w=1.0+i*1e-3;
      for(int j=0;j<N;j++) { hi[j]+=hy[j]*((double)kp[j]-(double)kr[j]); acc[j]+=w*hi[j]; } }
  }
  clock_gettime(CLOCK_MONOTONIC,&b);
  double sec=(b.tv_sec-a.tv_sec)+(b.tv_nsec-a.tv_nsec)*1e-9;
  printf("%s SS=%d per round %.1f us  col GB/s %.1f (%g)\n", sizeof(T)==8?"f64":"f32", SS, sec/R*1e6, R*2.0*M*N*sizeof(T)/sec/1e9, acc[3]);
}
