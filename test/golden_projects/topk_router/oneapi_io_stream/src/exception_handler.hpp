// The SYCL queue's asynchronous error handler of the myproject testbench (written by hls4ml):
// reports every exception the runtime delivers, then stops the program.
#ifndef MYPROJECT_EXCEPTION_HANDLER_HPP_
#define MYPROJECT_EXCEPTION_HANDLER_HPP_

#include <exception>
#include <iostream>

#include <sycl/sycl.hpp>
#include <sycl/ext/intel/fpga_extensions.hpp>

namespace hls4ml_testbench {

inline void exception_handler(sycl::exception_list exceptions) {
    for (const std::exception_ptr &pending : exceptions) {
        try {
            std::rethrow_exception(pending);
        } catch (const sycl::exception &error) {
            std::cerr << "asynchronous SYCL exception: " << error.what() << '\n';
            std::terminate();
        }
    }
}

} // namespace hls4ml_testbench

#endif
